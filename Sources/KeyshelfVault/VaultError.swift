/// A vault failure: what went wrong, the file concerned and a sentence the
/// user can act on, plus the `errSec…` status it reports (DESIGN §2), which
/// gives the exit code (DESIGN §8). Equality compares `code` only, which keeps tests simple.
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

    /// The `OSStatus` for this failure (DESIGN §2): `errSecAuthFailed` for a
    /// wrong password; `errSecDecode` for a file this build does not read
    /// (not a vault, damaged, truncated, unsupported, KDF refused);
    /// `errSecItemNotFound` for no vault, `errSecDuplicateItem` for one
    /// already there; `errSecParam` for plain I/O trouble (`isPlainIO`).
    public var status: KeychainStatus {
        switch code {
        case .wrongPassword: .authFailed
        case .notAVault, .unsupportedVersion, .damaged, .truncated, .kdfLimitsTooHigh, .kdfLimitsNotApproved: .decode
        case .noVault: .itemNotFound
        case .alreadyExists: .duplicateItem
        case .changedOnDisk, .locked, .io: .param
        }
    }

    /// Plain I/O trouble (files, locks, a vault replaced on disk, a locked
    /// session): not the caller's parameter, so messages name no status and
    /// the exit code is 1, not `errSecParam`'s 2.
    public var isPlainIO: Bool { [.changedOnDisk, .locked, .io].contains(code) }

    /// The status a message names (`KeychainStatus.tagged`): nil for plain I/O.
    public var reportedStatus: KeychainStatus? { isPlainIO ? nil : status }

    /// The process exit code (DESIGN §8): the status's `KeychainStatus.exitCode`
    /// (5 wrong password, 7 damaged and the like, 3 no vault, 6 already
    /// exists), 1 for plain I/O.
    public var exitCode: Int32 { reportedStatus?.exitCode ?? 1 }

    /// `file: reason`, without the status (`status.tagged` adds it where one is printed).
    public var description: String { "\(file): \(reason)" }

    /// A master password that does not unwrap the vault key of `file`: "FILE: wrong master password".
    public static func wrongPassword(file: String) -> VaultError {
        VaultError(.wrongPassword, file: file, reason: "wrong master password")
    }

    /// What to do about a damaged or truncated vault file. Credentials added
    /// since the file was last rewritten are in no backup (appends make
    /// none: docs/vault-format.md, "Appendices"), hence the copy first.
    static let restoreAdvice = "keep a copy of it (credentials added since it was last rewritten are in no backup), then restore it from backups/ or your sync copy"

    public static func == (lhs: VaultError, rhs: VaultError) -> Bool { lhs.code == rhs.code }
}
