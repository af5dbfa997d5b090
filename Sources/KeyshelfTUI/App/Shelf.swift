import Foundation
import KeyshelfCrypto
import KeyshelfVault

/// Answers a consent question with the index of the chosen button, or nil when declined.
///
/// The TUI's `DialogConsent` answers it with a modal dialog (DESIGN §5).
public protocol ConsentPrompt: AnyObject {
    /// Shows `title`, `message` and `buttons` (safe one first); returns the chosen index or nil.
    func ask(title: String, message: String, buttons: [String]) -> Int?
}

/// The operations the TUI needs from the domain layer, one call per user action.
///
/// The TUI holds no rules: normalising servers, Keychain semantics, when
/// consent is needed and the generator all live behind this seam.
public protocol Shelf: AnyObject {
    /// Every live credential of both stores.
    func records() throws -> [CredentialRecord]
    /// The password of `record`; the caller checks `requiresUserPresence` first.
    func password(of record: CredentialRecord) throws -> Secret
    /// Adds a credential. SERVER may be a host, `host:port` or a URL.
    /// - Throws: an error whose description says what to fix (invalid server, duplicate…).
    func add(server: String, account: String, password: Secret, store: Store, comment: String, consent: ConsentPrompt) throws
    /// Changes account, password (nil keeps it) or comment; asks consent when a saved password changes.
    func update(_ record: CredentialRecord, account: String, password: Secret?, comment: String, consent: ConsentPrompt) throws
    /// Deletes after consent; declining throws the canceled error and changes nothing.
    func delete(_ record: CredentialRecord, consent: ConsentPrompt) throws
    /// A new `xxx-xxx-xxx-xxx` password (DESIGN §3).
    func generatePassword() -> Secret
    /// Whether `password` is the master password (re-asked before revealing userPresence items).
    func verifyMasterPassword(_ password: Secret) -> Bool
    /// The login flow for `server` (DESIGN §4): the credential to use, or nil when nothing was chosen.
    func login(server: String, consent: ConsentPrompt) throws -> CredentialRecord?
    /// Wipes the keys from memory; the shelf is unusable afterwards.
    func lock()
}

/// A user action was declined in a consent dialog (`errSecUserCanceled`, −128).
public struct ConsentDeclined: Error, CustomStringConvertible {
    public init() {}
    public var description: String { "Canceled: nothing was changed (errSecUserCanceled -128)." }
}
