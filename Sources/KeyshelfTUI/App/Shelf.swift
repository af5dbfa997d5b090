import Foundation
import KeyshelfCredentials
import KeyshelfCrypto
import KeyshelfTransfer
import KeyshelfVault

/// The questions the domain layer may ask the user in the middle of an action,
/// answered by the TUI's modal dialogs and forms.
public protocol UserPrompts: AnyObject {
    /// A consent dialog (DESIGN §5): `buttons` safe one first; returns the
    /// chosen index, or nil when declined (Esc, `n`, or the safe button).
    /// - Parameter destructive: indexes into `buttons` of the destructive
    ///   choices, as the request says (`ConsentRequest.destructiveButtons`), never guessed from a label.
    func ask(title: String, message: String, buttons: [String], destructive: Set<Int>) -> Int?
    /// The master password, re-asked before a `userPresence` item is released; nil when canceled.
    ///
    /// `verify` checks a typed password (the vault's check); a wrong one keeps the
    /// prompt open for another try, so later keys never reach the browser. After
    /// `masterPasswordTries` wrong ones the last is returned, and the domain
    /// layer's own check then fails with `errSecAuthFailed`.
    func askMasterPassword(reason: String, verify: (Secret) -> Bool) -> Secret?
    /// Login-flow step 3 (DESIGN §4): an account and password for `server`,
    /// offering `suggestion` (a generated password); nil when canceled.
    func askCredential(server: String, account: String?, suggestion: Secret, failedAttempts: Int) -> (account: String, password: Secret)?
}

/// The operations the TUI needs from the domain layer, one call per user action.
///
/// The TUI holds no rules: normalising servers, Keychain semantics, when
/// consent is needed and the generator all live behind this seam
/// (`KeyshelfShelf` implements it over the `Keyshelf` facade).
public protocol Shelf: AnyObject {
    /// Every live credential of both stores.
    func records() throws -> [ShelfEntry]
    /// The records of the last `records()` that match `query`, as positions
    /// in that array, ascending: the fields `keyshelf search` matches
    /// (`Keyshelf.search`: server as shown and as A-label, port, account,
    /// label, notes; case-insensitive), so `/` and the CLI find the same
    /// credentials; generic passwords as `Keyshelf.searchGenerics` matches
    /// them (service, account, label, notes), as `keyshelf search` prints them.
    func search(_ query: String) -> [Int]
    /// The password of `record`; a `userPresence` item asks the master password
    /// through `prompts`, naming `purpose` (show or copy) in the reason.
    func password(of record: ShelfEntry, for purpose: RevealPurpose, prompts: UserPrompts) throws -> Secret
    /// Adds a credential to `store`, or changes the password saved there
    /// (asking consent when it differs). SERVER may be a host, `host:port` or a URL.
    /// - Parameter label: the item's label; empty sets none.
    /// - Returns: the server it was saved for, normalised (the TUI names it by its `qualified` form).
    /// - Throws: an error whose description says what to fix (invalid server, duplicate…).
    @discardableResult
    func add(server: String, account: String, password: Secret, store: Store, label: String, comment: String,
             prompts: UserPrompts) throws -> ServerName
    /// Changes account, password (nil keeps it) or comment; asks consent when a saved password changes.
    func update(_ record: ShelfEntry, account: String, password: Secret?, comment: String, prompts: UserPrompts) throws
    /// Changes the label, server (a host, `host:port` or URL as typed) or store
    /// of `record` (whose account is now `account`); nil leaves each as it is.
    /// Moving onto a saved item asks consent first (issue 13 rule 5).
    func editMetadata(_ record: ShelfEntry, account: String, label: String?, server: String?, store: Store?, prompts: UserPrompts) throws
    /// Deletes after consent; declining throws `ConsentDeclined` and changes nothing.
    func delete(_ record: ShelfEntry, prompts: UserPrompts) throws
    /// A new password for `server` (a host, `host:port` or URL as typed; nil or
    /// unparsable: none): its saved `passwordrules`, else `xxx-xxx-xxx-xxx`
    /// (DESIGN §3, §11), with a line saying which (`PasswordRecipe.summary`).
    /// - Throws: an error whose description says what to fix (a saved rule that cannot be used).
    func generatePassword(for server: String?) throws -> (password: Secret, summary: String)
    /// The login flow for `server` (DESIGN §4), scheme included; returns the entry to use, or nil when nothing was chosen.
    func login(server: ServerName, prompts: UserPrompts) throws -> ShelfEntry?
    /// Reads the export at `path` (never modifying it) and plans importing it
    /// into `store` against the saved items; writes nothing (issue 5, docs/import.md).
    /// - Parameter format: nil detects the format from the header line (DESIGN §9).
    /// - Throws: `TransferError` for a file that cannot be imported as a whole
    ///   (unreadable, not UTF-8, malformed or truncated, with the line), or the vault's error.
    func planImport(path: String, format: ImportFormat?, store: Store) throws -> ImportPlan
    /// Writes `plan` in one atomic save. Each update of a saved password asks
    /// consent through `prompts` first ("Update Saved Password?"); a declined one
    /// is reported as skipped.
    /// - Returns: what was imported, updated, skipped and failed.
    /// - Throws: the vault's error; nothing is then changed.
    func commitImport(_ plan: ImportPlan, prompts: UserPrompts) throws -> ImportReport
    /// The accounts with audit findings (weak, reused, http-only; docs/audit.md).
    /// Never waits for the strength estimates of a whole shelf: those not made
    /// yet may be made in the background, and `auditGeneration` then moves.
    func auditFindings() throws -> [ShelfFinding]
    /// Moves when background audit work ends: findings asked for before it may now be more complete.
    var auditGeneration: Int { get }
    /// The accounts with a one-time-code secret, by id (the list's badge; docs/otp.md, "TUI").
    func oneTimeCodeSummaries() throws -> [UUID: OneTimeCodeSummary]
    /// The code of `record` at `time` (Unix seconds); HOTP advances the saved
    /// counter, a `userPresence` item asks the master password through `prompts`.
    func oneTimeCode(of record: ShelfEntry, at time: Int64, prompts: UserPrompts) throws -> OneTimeCode
    /// The code of `record` to copy at `time` and the Unix second it is valid
    /// from (the next period's when too few seconds are left; `OTPAuth.copyTime`).
    func oneTimeCodeToCopy(of record: ShelfEntry, at time: Int64, prompts: UserPrompts) throws -> (code: OneTimeCode, validFrom: Int64)
    /// Reads the vault again when another process changed it since the last
    /// `records()` (cheap when nothing changed: the vault checks its files).
    /// - Returns: whether it changed; `records()` then gives the new items.
    func refreshIfChanged() throws -> Bool
    /// Wipes the keys from memory; the shelf is unusable afterwards.
    func lock()
}

/// A user action was declined in a dialog (`errSecUserCanceled`, −128); nothing changed.
public struct ConsentDeclined: Error, CustomStringConvertible {
    public var reason: String
    public init(_ reason: String = "nothing was changed") { self.reason = reason }
    /// "Canceled: reason (errSecUserCanceled -128)."
    public var description: String { "Canceled: \(KeychainError(.userCanceled, reason))." }
}
