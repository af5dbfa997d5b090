/// A vault failure: what went wrong, the file concerned and a sentence the
/// user can act on, plus the `errSec…` status and the CLI exit code it maps to
/// (DESIGN §2, §8). Equality compares `code` only, which keeps tests simple.
public struct VaultError: Error, Equatable, CustomStringConvertible, Sendable {
    /// The kind of failure.
    public enum Code: Equatable, Sendable {
        /// The master password does not unwrap the vault key.
        case wrongPassword
        /// The file is not a keyshelf vault (unknown magic).
        case notAVault
        /// The file is a vault of a format version (or KDF) this build cannot read.
        case unsupportedVersion
        /// The file is a vault but its bytes do not authenticate or do not parse.
        case damaged
        /// The file ends before the length its header announces.
        case truncated
        /// The header asks for Argon2id limits above the ceilings; refused without running.
        case kdfLimitsTooHigh
        /// The header asks for Argon2id limits above this machine's, and they
        /// were not approved (`KeyDerivationConsent`); refused without running.
        case kdfLimitsNotApproved
        /// There is no vault in the directory.
        case noVault
        /// `create` found a vault already there.
        case alreadyExists
        /// A vault file was replaced on disk since it was read (e.g. by a `git pull`).
        case changedOnDisk
        /// The session was locked; unlock again.
        case locked
        /// A system call failed (permissions, disk full, …).
        case io
    }

    public var code: Code
    /// The path of the file or directory concerned.
    public var file: String
    /// A sentence the user can act on. Never contains a secret.
    public var reason: String

    public init(_ code: Code, file: String, reason: String) {
        self.code = code
        self.file = file
        self.reason = reason
    }

    /// The `OSStatus` value for this failure (DESIGN §2): `errSecAuthFailed`
    /// −25293, `errSecDecode` −26275, `errSecItemNotFound` −25300,
    /// `errSecDuplicateItem` −25299, otherwise `errSecParam` −50.
    public var status: Int32 {
        switch code {
        case .wrongPassword: -25293
        case .notAVault, .unsupportedVersion, .damaged, .truncated, .kdfLimitsTooHigh, .kdfLimitsNotApproved: -26275
        case .noVault: -25300
        case .alreadyExists: -25299
        case .changedOnDisk, .locked, .io: -50
        }
    }

    /// The process exit code for this failure (DESIGN §8): 5 wrong password,
    /// 7 damaged / truncated / unsupported / not a vault / KDF too high or not approved,
    /// 3 no vault, 6 already exists, 1 otherwise.
    public var exitCode: Int32 {
        switch code {
        case .wrongPassword: 5
        case .notAVault, .unsupportedVersion, .damaged, .truncated, .kdfLimitsTooHigh, .kdfLimitsNotApproved: 7
        case .noVault: 3
        case .alreadyExists: 6
        case .changedOnDisk, .locked, .io: 1
        }
    }

    public var description: String { "\(file): \(reason)" }

    /// What to do about a damaged or truncated vault file. Credentials added
    /// since the file was last rewritten are in no backup (appends make
    /// none: docs/vault-format.md, "Appendices"), hence the copy first.
    static let restoreAdvice = "keep a copy of it (credentials added since it was last rewritten are in no backup), then restore it from backups/ or your sync copy"

    public static func == (lhs: VaultError, rhs: VaultError) -> Bool { lhs.code == rhs.code }
}
