import Foundation
import KeyshelfCrypto
import KeyshelfVault

/// The changes of the facade, made by its `ShelfWriter`. A password saved
/// over another asks consent by one rule in both stores (`PasswordUpdateConsent`).
extension Keyshelf {
    /// `keyshelf add`: saves `password` for `account` at `server` in `store`.
    ///
    /// Both stores follow the Shared Web Credentials `add` rule (DESIGN §3,
    /// `PasswordUpdateConsent`): new → added; same password → unchanged;
    /// another password → consent `.update` first.
    /// - Parameters:
    ///   - accessible: `…ThisDeviceOnly` is refused for the shared store.
    ///   - accessControl: `.userPresence` makes reveal re-ask the master password (local only).
    /// - Throws: `errSecUserCanceled` (declined, nothing changed), `errSecParam`
    ///   (empty account, `…ThisDeviceOnly` or `userPresence` for shared), vault errors.
    @discardableResult
    public func add(
        server: ServerName, account: String, password: Secret, to store: Store, comment: String? = nil,
        accessible: Accessible = .whenUnlocked, accessControl: AccessControl = .none
    ) throws -> AddOutcome {
        try writer.add(server: server, account: account, password: password, to: store, comment: comment,
                       accessible: accessible, accessControl: accessControl)
    }

    /// Edits `entry`: a new password asks consent (`.update`) once and also
    /// goes to the same account at the same server in the other store, when
    /// it holds one (DESIGN §4, issue 13 rule 2); removing `userPresence`
    /// re-asks the master password; other fields change directly.
    /// - Throws: `errSecUserCanceled`, `errSecAuthFailed`, `errSecItemNotFound`
    ///   (entry gone), `errSecDuplicateItem` (renamed onto an existing account), `errSecParam`.
    public func update(_ entry: CredentialEntry, _ changes: CredentialChanges) throws {
        try writer.update(entry, changes)
    }

    /// Deletes `entry` after consent (`.delete`), leaving a tombstone (DESIGN §6).
    /// - Throws: `errSecUserCanceled`, `errSecItemNotFound`.
    public func delete(_ entry: CredentialEntry) throws {
        try writer.delete(entry)
    }

    /// `keyshelf rm`: deletes `account` at `server` from the stores in
    /// `filter`, asking consent (`.delete`) once.
    /// - Returns: the stores it was deleted from (one or both, local first).
    /// - Throws: `errSecItemNotFound` when no store has it, `errSecUserCanceled`.
    @discardableResult
    public func delete(server: ServerName, account: String, in filter: StoreFilter = .both) throws -> [Store] {
        try writer.delete(server: server, account: account, in: filter)
    }

    /// Login-flow step 5 (DESIGN §4) and the git helper's `store`: saves the
    /// credential to the local store and, through `SharedWebCredentials.add`,
    /// to the shared credentials. Changing an existing password asks consent
    /// (`.update`) once for both stores; a store whose update is declined is
    /// left unchanged and reported as nil. `oauth` (the git helper's, nil
    /// elsewhere) replaces the item's OAuth attributes; a change that only
    /// rotates an OAuth token needs no consent (`OAuthAttributes.rotates`).
    /// An account that signs in with Apple in either store is left as it is
    /// in both (`.unchanged`): no password is saved for it anywhere.
    /// - Throws: `errSecParam` (empty account), vault errors.
    @discardableResult
    public func save(server: ServerName, account: String, password: Secret, oauth: OAuthAttributes? = nil) throws -> SaveResult {
        try writer.save(server: server, account: account, password: password, oauth: oauth)
    }

    /// `keyshelf add`: saves `password` for `account` in every store of
    /// `filter` that holds the account at the server (DESIGN §4, "a password
    /// change made through any path updates every store that holds the
    /// account"), asking consent (`.update`) once when any stored password
    /// differs. When no store of `filter` holds it, it is added to
    /// `newItems` (with `filter == .both`) or to the one store of `filter`.
    ///
    /// A scheme-less `server` names the server the account is saved at
    /// (`server(matching:account:in:)`), else `pattern.newServer` (https).
    /// - Parameters:
    ///   - label, comment: a label and notes for every item written; nil leaves them as they are.
    /// - Returns: the outcome per store written.
    /// - Throws: `errSecUserCanceled` (declined: nothing changed), `errSecParam`
    ///   (empty account, a password that is not text, a SERVER saved for
    ///   several protocols), `errSecDuplicateItem` (a store holds the account
    ///   as a Sign in with Apple account), vault errors.
    @discardableResult
    public func changePassword(
        _ password: Secret, server pattern: ServerPattern, account: String, in filter: StoreFilter = .both,
        newItems: Store = .shared, label: String? = nil, comment: String? = nil
    ) throws -> PasswordChangeReport {
        try writer.changePassword(password, server: pattern, account: account, in: filter, newItems: newItems, label: label, comment: comment)
    }

    /// `keyshelf passwd`: checks the master password `current` and makes
    /// `newPassword` the master password (`CredentialVault.changeMasterPassword`;
    /// for a vault: new vault keys, both files re-sealed, DESIGN §6). The items
    /// do not change.
    /// - Throws: `errSecAuthFailed` when `current` is wrong (nothing changes); vault errors.
    public func changeMasterPassword(from current: Secret, to newPassword: Secret) throws {
        try vault.changeMasterPassword(from: current, to: newPassword)
    }

    /// `keyshelf edit SERVER ACCOUNT`: changes the label, notes, account,
    /// server or store of the item(s) of `account` at `pattern` in `filter`
    /// (both copies when both stores hold it). Renaming or moving onto an
    /// item that already exists overwrites it, after consent (`.update`, as a
    /// password update); nothing else asks.
    /// - Returns: the stores the account is in afterwards.
    /// - Throws: `errSecItemNotFound`; `errSecParam` (a SERVER saved for
    ///   several protocols, an empty account, moving a copy held in both
    ///   stores without `--local`/`--shared`, a `…ThisDeviceOnly` or
    ///   `userPresence` item to the shared store); `errSecUserCanceled`.
    @discardableResult
    public func edit(server pattern: ServerPattern, account: String, in filter: StoreFilter = .both, _ changes: MetadataChanges) throws -> [Store] {
        try writer.edit(server: pattern, account: account, in: filter, changes)
    }

    /// The git helper's `erase` (git-credential(1); git's t0303 rules):
    /// deletes, from both stores, the internet passwords of `server`
    /// (protocol, host and port) that match — of `account` when given, else
    /// of every account; with `password` given, only items whose stored
    /// password equals it (constant-time compare). Consent (`.delete`) is
    /// asked once per account; a declined account is kept. A Sign in with
    /// Apple account has no password for git and is never erased.
    /// - Returns: which accounts were deleted and which declined; both empty
    ///   when nothing matched.
    /// - Throws: vault errors.
    @discardableResult
    public func erase(server: ServerName, account: String?, password: Secret?) throws -> EraseResult {
        try writer.erase(server: server, account: account, password: password)
    }

    /// `keyshelf add SERVER ACCOUNT --sign-in-with-apple`: saves `account` at
    /// `server` in `store` as a Sign in with Apple account.
    ///
    /// - Parameters:
    ///   - hidesEmail: the user chose Hide My Email; nil: true exactly when
    ///     `account` is a relay address (`AppleSignIn.isRelayAddress`).
    ///   - forwardingAddress: the real address a relay forwards to; empty when not given.
    ///   - since: when the account was created (the first sign-in); nil: now.
    ///   - label: `kSecAttrLabel`.
    /// - Throws: `errSecDuplicateItem` when the store already holds `account`
    ///   at `server` (with a password or not); `errSecParam` for an empty
    ///   account, or a forwarding address for an e-mail that is not hidden; vault errors.
    public func addAppleAccount(
        server: ServerName, account: String, to store: Store, hidesEmail: Bool? = nil,
        forwardingAddress: String = "", since: Date? = nil, label: String = ""
    ) throws {
        try writer.addAppleAccount(server: server, account: account, to: store, hidesEmail: hidesEmail,
                                   forwardingAddress: forwardingAddress, since: since, label: label)
    }

    // MARK: - Generic passwords

    /// `keyshelf add --service`: saves a generic password. A new one goes to
    /// the local store, or with `synchronizable` to the shared (synced) file
    /// (Keychain's `kSecAttrSynchronizable`); an existing one is changed where
    /// it is, after consent (`.updateService`) when its password differs.
    /// Generic passwords are never released through the shared-web-credentials
    /// request (`SharedWebCredentials.request` reads internet passwords only).
    /// - Parameters:
    ///   - label, comment: nil leaves an existing item's as they are.
    /// - Returns: the outcome and the store written.
    /// - Throws: `errSecParam` (empty or reserved service, empty account, a
    ///   password that is not text), `errSecUserCanceled` (declined), vault errors.
    @discardableResult
    public func addGeneric(service: String, account: String, password: Secret, synchronizable: Bool = false,
                           label: String? = nil, comment: String? = nil) throws -> (outcome: AddOutcome, store: Store) {
        try writer.addGeneric(service: service, account: account, password: password, synchronizable: synchronizable,
                              label: label, comment: comment)
    }

    /// `keyshelf edit --service NAME ACCOUNT`: the label, notes or account of
    /// a generic password, where it is. Renaming onto an existing account of
    /// the service overwrites it after consent (`.updateService`).
    /// - Throws: `errSecItemNotFound`, `errSecParam` (a server or store change,
    ///   an empty account), `errSecUserCanceled`.
    public func editGeneric(service: String, account: String, _ changes: MetadataChanges) throws {
        try writer.editGeneric(service: service, account: account, changes)
    }

    /// `keyshelf rm --service`: deletes the generic password after consent
    /// (`.deleteService`), leaving a tombstone (DESIGN §6).
    /// - Returns: the store it was deleted from.
    /// - Throws: `errSecItemNotFound`, `errSecUserCanceled`.
    @discardableResult
    public func deleteGeneric(service: String, account: String) throws -> Store {
        try writer.deleteGeneric(service: service, account: account)
    }
}
