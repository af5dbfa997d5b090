import KeyshelfVault

/// A failed keychain or shared-credentials operation: the `errSec…` status
/// (`KeychainStatus`, from the vault module, which owns the table) and a
/// sentence the user can act on (never a secret).
///
/// Equality compares the status only, which keeps tests simple.
public struct KeychainError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The `errSec…` status; `status.exitCode` is the CLI exit code.
    public var status: KeychainStatus
    /// What happened and to which item, e.g. "no saved password for alice at example.com".
    public var reason: String

    public init(_ status: KeychainStatus, _ reason: String) {
        self.status = status
        self.reason = reason
    }

    /// `reason (errSecItemNotFound -25300)`.
    public var description: String { status.tagged(reason) }

    public static func == (a: KeychainError, b: KeychainError) -> Bool { a.status == b.status }

    /// A typed master password that did not open the vault or confirm an
    /// action: "Wrong master password (errSecAuthFailed -25293)", what the
    /// TUI's prompts show.
    public static let wrongMasterPassword = KeychainError(.authFailed, "Wrong master password")

    static func notFound(_ what: String) -> KeychainError { .init(.itemNotFound, what) }
    static func canceled(_ what: String) -> KeychainError { .init(.userCanceled, what) }
    static func duplicate(_ what: String) -> KeychainError { .init(.duplicateItem, what) }
    static func param(_ what: String) -> KeychainError { .init(.param, what) }
}
