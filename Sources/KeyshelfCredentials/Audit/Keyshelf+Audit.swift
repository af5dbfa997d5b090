import Foundation
import KeyshelfCrypto
import KeyshelfVault

extension Keyshelf {
    /// Every live internet password of the snapshot with its password, for
    /// `AuditEngine` (docs/audit.md). The passwords stay in the decoded vault
    /// buffer and never leave this process; so no consent is asked, and
    /// `userPresence` items are audited too (nothing is shown).
    public func auditSubjects() -> [AuditSubject] {
        var passwords: [UUID: Secret] = [:]
        for store in Store.allCases {
            for item in items[store] where !item.isDeleted {
                if let password = item.password { passwords[item.id] = password }
            }
        }
        return entries().map { AuditSubject(entry: $0, password: passwords[$0.id]) }
    }

    /// Runs `engine` over every account of the snapshot.
    /// - Throws: the engine's `AuditError`.
    public func audit(with engine: AuditEngine) throws -> AuditReport {
        try engine.audit(auditSubjects())
    }

    /// Ignores `problem` for `entry` from now on, or shows it again when `ignore` is false;
    /// stored in the item (its `ignoredFindings`), so it syncs with it.
    /// - Throws: `errSecItemNotFound` when the entry is gone; the vault's errors.
    public func setIgnored(_ problem: AuditProblem, _ ignore: Bool, for entry: CredentialEntry) throws {
        var bits = entry.ignoredFindings
        if ignore { bits.insert(problem.bit) } else { bits.remove(problem.bit) }
        guard bits != entry.ignoredFindings else { return }
        try update(entry, CredentialChanges(ignoredFindings: bits))
    }
}
