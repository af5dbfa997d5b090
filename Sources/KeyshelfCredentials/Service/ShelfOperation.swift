import KeyshelfCrypto
import KeyshelfVault

/// One credentials operation of the domain, run by `perform(on:)` on a
/// `Keyshelf` facade: the same call whether the facade is the command's own
/// (the direct path) or the unlocked agent's, which only encodes and decodes
/// operations and results (docs/agent-protocol.md, "Requests").
///
/// Adding an operation is one case here, one arm of `perform` and of
/// `writes`, and its codec in KeyshelfAgent (docs/architecture.md, "Where a
/// new operation goes"). `keyshelf login` runs `LoginFlow` in the client
/// with the vault steps as operations (`lookup`, `suggestPassword`,
/// `saveLogin`); `import` is `planImport`, then consent asked in the client,
/// then `importLogins`; `passwd` is `changeMasterPassword`. Not operations
/// yet: sync, otp and audit, which open the vault through the CLI's opener
/// and call the facade.
public enum ShelfOperation: Sendable {
    /// `Keyshelf.get(server:account:in:)` (a scheme-less server matches every protocol).
    case get(server: ServerPattern, account: String?, filter: StoreFilter)
    /// `Keyshelf.accounts(of:in:)` with a server, else `Keyshelf.entries(in:)`.
    case list(server: ServerPattern?, filter: StoreFilter)
    /// `Keyshelf.search(_:in:)` and `Keyshelf.searchGenerics(_:in:)`: web logins and generic passwords.
    case search(query: String, filter: StoreFilter)
    /// Add or update (`keyshelf add`): `Keyshelf.changePassword(_:server:account:in:newItems:)`,
    /// every store of `filter` holding the account, else `newItems` (issue 13 rule 2).
    case change(server: ServerPattern, account: String, password: Secret, filter: StoreFilter, newItems: Store)
    /// `keyshelf rm`: the saved server `server` resolves to for `account`
    /// (`Keyshelf.server(matching:account:in:)`), then
    /// `Keyshelf.delete(server:account:in:)`, which asks consent.
    case delete(server: ServerPattern, account: String, filter: StoreFilter)
    /// `keyshelf rm --service`: `Keyshelf.deleteGeneric(service:account:)`, which asks consent.
    case deleteGeneric(service: String, account: String)
    /// `keyshelf edit`: the saved server `server` resolves to for `account`
    /// (`Keyshelf.server(matching:account:in:)`), then
    /// `Keyshelf.edit(server:account:in:_:)`, which asks consent only to
    /// overwrite an item saved under the new name.
    case edit(server: ServerPattern, account: String, filter: StoreFilter, changes: MetadataChanges)
    /// `keyshelf edit --service`: `Keyshelf.editGeneric(service:account:_:)`.
    case editGeneric(service: String, account: String, changes: MetadataChanges)
    /// Login-flow steps 1–2 (`keyshelf login`): the saved server `server`
    /// resolves to for `account` (`Keyshelf.server(matching:account:in:)`,
    /// else `pattern.newServer`), then `Keyshelf.lookup` there, which asks
    /// release consent for a shared credential.
    case lookup(server: ServerPattern, account: String?, passwordsOnly: Bool)
    /// Login-flow step 3's suggestion: `Keyshelf.generatePassword(for:)`.
    case suggestPassword(server: ServerName)
    /// Login-flow step 5: `Keyshelf.save` to both stores, or with
    /// `localOnly` `LoginSteps.keepLocally` (a shared credential that worked).
    case saveLogin(server: ServerName, account: String, password: Secret, localOnly: Bool)
    /// `keyshelf export`: `Keyshelf.exportableItems()`.
    case export
    /// `keyshelf import`, first step: `Keyshelf.planImport(_:into:)`.
    case planImport(logins: [ImportLogin], store: Store)
    /// `keyshelf import`, last step: `Keyshelf.importLogins(additions:updates:into:)`
    /// with the updates the user consented to.
    case importLogins(additions: [ImportLogin], updates: [ImportLogin], store: Store)
    /// `keyshelf passwd`: `Keyshelf.changeMasterPassword(from:to:)`, which
    /// checks `current` first (one Argon2id run; a wrong one is
    /// `errSecAuthFailed` and changes nothing), then rotates the vault keys
    /// under `new`. The agent then keeps serving with the new password's keys.
    case changeMasterPassword(current: Secret, new: Secret)

    /// Whether the operation may write the vault (the agent then rotates the
    /// backups after its reply).
    public var writes: Bool {
        switch self {
        case .get, .list, .search, .lookup, .suggestPassword, .export, .planImport: false
        case .change, .delete, .deleteGeneric, .edit, .editGeneric, .saveLogin, .importLogins, .changeMasterPassword: true
        }
    }

    /// Runs the operation on `shelf`, asking `shelf.consent` as the facade does.
    /// - Returns: `.record` for `get`, `.records` for `list`, `.found` for
    ///   `search`, `.changed` for `change`, `.deleted` for `delete`, `.deletedGeneric`
    ///   for `deleteGeneric`, `.edited` for `edit`, `.editedGeneric` for
    ///   `editGeneric`, `.lookedUp` for `lookup`, `.generated` for
    ///   `suggestPassword`, `.saved` for `saveLogin`, `.exported` for
    ///   `export`, `.planned` for `planImport`, `.imported` for `importLogins`,
    ///   `.masterPasswordChanged` for `changeMasterPassword`.
    /// - Throws: the facade's `KeychainError`s (`itemNotFound` when nothing
    ///   matches, `userCanceled` when consent is declined, …), `VaultError`s,
    ///   and `PasswordRulesError` from `suggestPassword`.
    public func perform(on shelf: Keyshelf) throws -> ShelfResult {
        switch self {
        case let .get(server, account, filter):
            return .record(try shelf.get(server: server, account: account, in: filter))
        case let .list(server, filter):
            let entries = server.map { shelf.accounts(of: $0, in: filter) } ?? shelf.entries(in: filter)
            return .records(CredentialRecords(entries: entries))
        case let .search(query, filter):
            return .found(records: CredentialRecords(entries: shelf.search(query, in: filter)),
                          generics: shelf.searchGenerics(query, in: filter))
        case let .change(server, account, password, filter, newItems):
            return .changed(try shelf.changePassword(password, server: server, account: account, in: filter, newItems: newItems))
        case let .delete(pattern, account, filter):
            guard let server = try shelf.server(matching: pattern, account: account, in: filter) else {
                throw KeychainError(.itemNotFound, "no saved password for \(InertText.quoted(account)) on \(pattern.display)")
            }
            return .deleted(server: server, stores: try shelf.delete(server: server, account: account, in: filter))
        case let .deleteGeneric(service, account):
            return .deletedGeneric(store: try shelf.deleteGeneric(service: service, account: account))
        case let .edit(pattern, account, filter, changes):
            guard let server = try shelf.server(matching: pattern, account: account, in: filter) else {
                throw KeychainError(.itemNotFound, "no saved password for \(InertText.quoted(account)) on \(pattern.display)")
            }
            let stores = try shelf.edit(server: ServerPattern(server), account: account, in: filter, changes)
            return .edited(server: changes.server ?? server, stores: stores)
        case let .editGeneric(service, account, changes):
            try shelf.editGeneric(service: service, account: account, changes)
            return .editedGeneric
        case let .lookup(pattern, account, passwordsOnly):
            // A scheme-less SERVER is the one server its saved accounts are at (https when none).
            let server = try shelf.server(matching: pattern, account: account) ?? pattern.newServer
            return .lookedUp(server: server, record: try shelf.findCredential(server: server, account: account, passwordsOnly: passwordsOnly))
        case .suggestPassword(let server):
            return .generated(try shelf.suggestedPassword(for: server))
        case let .saveLogin(server, account, password, localOnly):
            return .saved(localOnly ? try shelf.keepLocally(server: server, account: account, password: password)
                                    : try shelf.saveToBothStores(server: server, account: account, password: password))
        case .export:
            return .exported(try shelf.exportableItems())
        case let .planImport(logins, store):
            return .planned(try shelf.planImport(logins, into: store))
        case let .importLogins(additions, updates, store):
            return .imported(try shelf.importLogins(additions: additions, updates: updates, into: store))
        case let .changeMasterPassword(current, new):
            try shelf.changeMasterPassword(from: current, to: new)
            return .masterPasswordChanged
        }
    }
}
