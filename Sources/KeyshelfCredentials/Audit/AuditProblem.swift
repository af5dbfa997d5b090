import KeyshelfVault

/// One kind of audit finding (docs/audit.md). The raw values are the words
/// `keyshelf audit` prints and `--json` lists under `problems`.
public enum AuditProblem: String, Sendable, CaseIterable, Codable, Comparable {
    /// The password's zxcvbn estimate is under `PasswordStrength.weakThresholdBits`.
    case weak
    /// The same password is saved for another account.
    case reused
    /// The password is in a Have I Been Pwned list.
    case compromised
    /// The server is http-only: the password travels unencrypted.
    case insecure

    /// This problem's bit in an item's `ignoredFindings`.
    public var bit: AuditProblems {
        switch self {
        case .weak: .weak
        case .reused: .reused
        case .compromised: .compromised
        case .insecure: .insecure
        }
    }

    /// Declaration order: weak, reused, compromised, insecure.
    public static func < (a: AuditProblem, b: AuditProblem) -> Bool {
        allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
    }
}
