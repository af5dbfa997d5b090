/// The process exit codes, a contract with scripts (DESIGN §8).
public enum ExitCode: Int32, Sendable {
    case success = 0
    /// Any error without a more specific code (I/O, a failing `--check`).
    case failure = 1
    /// Bad command line or input: unknown option, missing argument, invalid server, empty account.
    case usage = 2
    /// `errSecItemNotFound` (−25300).
    case notFound = 3
    /// `errSecUserCanceled` (−128): canceled, or consent declined.
    case canceled = 4
    /// `errSecAuthFailed` (−25293): wrong master password.
    case authFailed = 5
    /// `errSecDuplicateItem` (−25299).
    case duplicate = 6
    /// The vault is damaged, truncated, not a vault, or of an unsupported version.
    case vaultDamaged = 7
    /// `keyshelf audit` found at least one problem (docs/audit.md).
    case findings = 8
    /// `keyshelf status`: no unlocked agent serves the vault (docs/cli.md, "Exit codes").
    case locked = 9
}

/// An error the CLI reports itself: a sentence for standard error and the exit code.
struct CLIError: Error, Sendable {
    var exitCode: ExitCode
    var message: String

    init(_ exitCode: ExitCode, _ message: String) {
        self.exitCode = exitCode
        self.message = message
    }
}
