import KeyshelfCrypto
import KeyshelfVault

/// One credentials operation of the domain, run by `perform(on:)` on a
/// `Keyshelf` facade: the same call whether the facade is the command's own
/// (the direct path) or the unlocked agent's, which only encodes and decodes
/// operations and results (docs/agent-protocol.md, "Requests").
///
/// Adding an operation is one case here, one arm of `perform` and of
/// `writes`, and its codec in KeyshelfAgent (docs/architecture.md, "Where a
/// new operation goes"). Operations not listed yet (login, import, export,
/// passwd, sync, otp, audit) open the vault through the CLI's opener and call
/// the facade directly.
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

    /// Whether the operation may write the vault (the agent then rotates the
    /// backups after its reply).
    public var writes: Bool {
        switch self {
        case .get, .list, .search: false
        case .change, .delete, .deleteGeneric: true
        }
    }

    /// Runs the operation on `shelf`, asking `shelf.consent` as the facade does.
    /// - Returns: `.record` for `get`, `.records` for `list`, `.found` for
    ///   `search`, `.changed` for `change`, `.deleted` for `delete`, `.deletedGeneric`
    ///   for `deleteGeneric`.
    /// - Throws: the facade's `KeychainError`s (`itemNotFound` when nothing
    ///   matches, `userCanceled` when consent is declined, …) and `VaultError`s.
    public func perform(on shelf: Keyshelf) throws -> ShelfResult {
        switch self {
        case let .get(server, account, filter):
            return .record(try shelf.get(server: server, account: account, in: filter))
        case let .list(server, filter):
            let entries = server.map { shelf.accounts(of: $0, in: filter) } ?? shelf.entries(in: filter)
            return .records(entries.map(\.record))
        case let .search(query, filter):
            return .found(records: shelf.search(query, in: filter).map(\.record),
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
        }
    }
}

/// What a `ShelfOperation` gave.
public enum ShelfResult: Sendable, Equatable {
    /// `get`: the record, with its password.
    case record(CredentialRecord)
    /// `list`: records without passwords, in the facade's order.
    case records([CredentialRecord])
    /// `search`: the matching web logins (without passwords) and generic
    /// passwords, each in the facade's order.
    case found(records: [CredentialRecord], generics: [GenericEntry])
    /// `change`: the outcome per store.
    case changed(PasswordChangeReport)
    /// `delete`: the server the account was deleted on and the stores it
    /// was deleted from (local first).
    case deleted(server: ServerName, stores: [Store])
    /// `deleteGeneric`: the store the generic password was deleted from.
    case deletedGeneric(store: Store)

    /// The record of a `get`, else nil.
    public var record: CredentialRecord? {
        if case .record(let found) = self { found } else { nil }
    }

    /// The records of a `list`, else nil.
    public var records: [CredentialRecord]? {
        if case .records(let found) = self { found } else { nil }
    }

    /// The web logins and generic passwords of a `search`, else nil.
    public var found: (records: [CredentialRecord], generics: [GenericEntry])? {
        if case let .found(records, generics) = self { (records, generics) } else { nil }
    }

    /// The report of a `change`, else nil.
    public var changeReport: PasswordChangeReport? {
        if case .changed(let report) = self { report } else { nil }
    }

    /// The server and stores of a `delete`, else nil.
    public var deletion: (server: ServerName, stores: [Store])? {
        if case let .deleted(server, stores) = self { (server, stores) } else { nil }
    }

    /// The store of a `deleteGeneric`, else nil.
    public var genericDeletion: Store? {
        if case .deletedGeneric(let store) = self { store } else { nil }
    }
}
