import Foundation
import KeyshelfCrypto
import KeyshelfVault

extension Keyshelf {
    /// Every live internet password of the snapshot with its password, for
    /// `AuditEngine` (docs/audit.md). The passwords stay in the decoded vault
    /// buffer and never leave this process; so no consent is asked, and
    /// `userPresence` items are audited too (nothing is shown).
    public func auditSubjects() -> [AuditSubject] {
        Self.auditSubjects(of: entries(), in: snapshot)
    }

    /// `auditSubjects()` of the current snapshot, paired later by the closure
    /// (on a background thread: at 100 000 accounts the pairing costs more than
    /// a frame). Holds the snapshot's items and listing, shared, not copied.
    public func deferredAuditSubjects() -> @Sendable () -> [AuditSubject] {
        let entries = entries(), items = snapshot
        return { Keyshelf.auditSubjects(of: entries, in: items) }
    }

    /// `entries` (of the listing of `items`) with their passwords.
    private static func auditSubjects(of entries: [CredentialEntry], in items: VaultContents) -> [AuditSubject] {
        var passwords: [UUID: Secret] = [:]
        // Sized once: growing step by step rehashed the table (a third of the pairing at 100k).
        passwords.reserveCapacity(items.local.count + items.shared.count)
        for store in Store.allCases {
            // Borrowed: binding each element would copy the whole item (a dozen retains).
            items[store].withUnsafeBufferPointer { list in
                for i in list.indices where !list[i].isDeleted {
                    if let password = list[i].password { passwords[list[i].id] = password }
                }
            }
        }
        return entries.map { AuditSubject(entry: $0, password: passwords[$0.id]) }
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
