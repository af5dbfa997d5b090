import Foundation
import KeyshelfCrypto
import KeyshelfVault

/// One account to audit: its listing entry and its password.
public struct AuditSubject: Sendable {
    public var entry: CredentialEntry
    /// Nil for an account without a password (Sign in with Apple): only `insecure` applies.
    public var password: Secret?

    public init(entry: CredentialEntry, password: Secret?) {
        self.entry = entry
        self.password = password
    }
}

/// The problems found for one account, each with the reason shown to the user.
/// Never holds the password or anything derived from it but the reasons below.
public struct AuditFinding: Sendable, Equatable {
    public var entry: CredentialEntry
    /// The problems not ignored, in `AuditProblem` order; never empty in a report.
    public var problems: [AuditProblem]
    /// A sentence per problem in `problems` (e.g. "estimated 8 bits …").
    public var reasons: [AuditProblem: String]
    /// Problems found but ignored for this item (its `ignoredFindings`).
    public var ignored: [AuditProblem]

    public init(entry: CredentialEntry, problems: [AuditProblem], reasons: [AuditProblem: String], ignored: [AuditProblem]) {
        self.entry = entry
        self.problems = problems
        self.reasons = reasons
        self.ignored = ignored
    }
}

/// What `AuditEngine.audit` found.
public struct AuditReport: Sendable, Equatable {
    /// Accounts with at least one problem not ignored, in listing order.
    public var findings: [AuditFinding]
    /// Accounts audited.
    public var auditedCount: Int
    /// Problems found but ignored, over all accounts.
    public var ignoredCount: Int

    public init(findings: [AuditFinding], auditedCount: Int, ignoredCount: Int) {
        self.findings = findings
        self.auditedCount = auditedCount
        self.ignoredCount = ignoredCount
    }

    /// The finding for the item `id`, if it has one.
    public func finding(for id: UUID) -> AuditFinding? {
        findings.first { $0.entry.id == id }
    }
}
