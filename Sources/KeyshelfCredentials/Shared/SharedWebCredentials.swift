import Foundation
import KeyshelfCrypto
import KeyshelfVault

/// The Shared Web Credentials calls over the items of `shared.vault`
/// (DESIGN §3): `add`, `request` and `generatePassword`, with their consent rules.
///
/// A value type over `[Item]` (tombstones included); the facade runs it inside
/// `VaultSession.modify`. A record is an internet password identified by
/// (`server` host, `port`, `protocol`, `account`), synchronizable and never
/// `…ThisDeviceOnly`.
public struct SharedWebCredentials: Sendable {
    /// Every shared item, tombstones included.
    public var items: [Item]

    public init(items: [Item] = []) {
        self.items = items
    }

    /// `SecAddSharedWebCredential`: stores, updates or deletes the record of
    /// `account` at `server`.
    ///
    /// - A `password` → stored or updated by `PasswordUpdateConsent` (the
    ///   rule the local store follows too): no record yet → stored without a
    ///   prompt (`.added`); the same password → nobody is asked
    ///   (`.unchanged`); another password → `consent` is asked (`.update`)
    ///   first (`.updated`), unless it only rotates an OAuth token.
    /// - `oauth` (the git helper's; nil: leave the record's as they are)
    ///   replaces the record's OAuth expiry and refresh token.
    /// - `password == nil` → the record is deleted after consent (`.delete`) (`.deleted`).
    /// - Throws: `errSecUserCanceled` when consent is declined (nothing
    ///   changes); `errSecItemNotFound` when deleting a record that does not
    ///   exist; `errSecParam` for an empty account or a password that is not
    ///   UTF-8 text without NUL (`PasswordText`), before anyone is asked.
    @discardableResult
    public mutating func add(
        server: ServerName, account: String, password: Secret?, consent: any Consent,
        comment: String? = nil, oauth: OAuthAttributes? = nil, now: Date = Date()
    ) throws -> AddOutcome {
        try add(server: server, account: account, password: password, consent: consent, comment: comment, oauth: oauth, now: now, lookup: .scanning)
    }

    /// `add`, finding the saved record through `lookup` (the shared store's
    /// items at `server`'s host, when the caller knows their positions).
    mutating func add(
        server: ServerName, account: String, password: Secret?, consent: any Consent,
        comment: String?, oauth: OAuthAttributes?, now: Date, lookup: HostLookup
    ) throws -> AddOutcome {
        try Self.check(account: account, password: password, server: server)
        guard let password else {
            guard let existing = lookup.firstIndex(in: items, of: .shared, where: ItemQuery.internet(server, account: account).matches) else {
                throw KeychainError.notFound("no shared password for \(InertText.quoted(account)) on \(server.qualified)")
            }
            guard consent.ask(.delete(server: server, account: account)) != .declined else {
                throw KeychainError.canceled("deleting the password for \(InertText.quoted(account)) on \(server.qualified) was declined")
            }
            items[existing].markDeleted(at: now)
            return .deleted
        }
        // Moved into a store and back (also on a throw), so appending copies no item.
        var store = LocalStore()
        swap(&store.items, &items)
        defer { swap(&store.items, &items) }
        return try PasswordUpdateConsent.save(password, server: server, account: account, comment: comment, oauth: oauth,
                                              newItem: Self.record(server: server, account: account, password: password, comment: comment ?? ""),
                                              in: &store, consent: consent, now: now, lookup: lookup, of: .shared)
    }

    /// `SecRequestSharedWebCredential`: the records matching `server` and
    /// `account`, released only with consent.
    ///
    /// `server == nil` means every domain (keyshelf is associated with all of
    /// them); `account == nil` every account of the site. For each server
    /// with matches, `consent` is asked once with `.release(server:accounts:)`:
    /// `.approved` releases every listed account, `.chose(account:)` that one,
    /// `.declined` none. Records are sorted by server, then account. Sign in
    /// with Apple accounts have no password and are not part of a request.
    /// - Returns: the released records; empty (not an error) when nothing matches.
    /// - Throws: `errSecUserCanceled` when there were matches but every
    ///   release was declined; the message names the accounts and server.
    public func request(server: ServerName?, account: String?, consent: any Consent) throws -> [SharedCredential] {
        var query = ItemQuery(itemClass: .internetPassword, account: account)
        if let server {
            query = .internet(server, account: account)
        }
        var byServer: [ServerName: [Item]] = [:]
        for index in items.indices(inPlace: query.matches) where items[index].signInWithApple == nil {
            guard let name = items[index].serverName else { continue }
            byServer[name, default: []].append(items[index])
        }
        guard !byServer.isEmpty else { return [] }
        var released: [SharedCredential] = []
        for name in byServer.keys.sorted() {
            let matches = byServer[name]!.sorted { $0.account < $1.account }
            let accounts = matches.map(\.account)
            let allowed: [Item]
            switch consent.ask(.release(server: name, accounts: accounts)) {
            case .declined: allowed = []
            case .approved: allowed = matches
            case .chose(let chosen): allowed = matches.filter { $0.account == chosen }
            }
            released += allowed.compactMap { item in
                item.password.map { SharedCredential(server: name, account: item.account, password: $0, oauth: OAuthAttributes(of: item)) }
            }
        }
        guard !released.isEmpty else {
            let servers = byServer.keys.sorted()
            let what = servers.count == 1
                ? "for \(byServer[servers[0]]!.map { InertText.quoted($0.account) }.sorted().joined(separator: ", ")) on \(servers[0].qualified)"
                : "for \(servers.count) servers"
            throw KeychainError.canceled("releasing the saved password \(what) was declined")
        }
        return released
    }

    /// `SecCreateSharedWebCredentialPassword`: a new `xxx-xxx-xxx-xxx` password (`PasswordGenerator`).
    public static func generatePassword() -> Secret {
        PasswordGenerator.generate()
    }

    /// A new shared record: synchronizable, `whenUnlocked`.
    /// The item that `add` would put after the last one for `password`: a
    /// credential not saved yet (no record for `account` at `server`, no
    /// tombstone to revive). Nil when `add` would change an existing item
    /// instead. Changes nothing.
    /// - Throws: what `add` throws before changing anything (`errSecParam`,
    ///   `errSecDuplicateItem`).
    public func appendedItem(server: ServerName, account: String, password: Secret, comment: String? = nil, now: Date = Date()) throws -> Item? {
        try Self.check(account: account, password: password, server: server)
        return try LocalStore(items: items).appended(Self.record(server: server, account: account, password: password, comment: comment ?? ""),
                                                     unlessAny: .internet(server, account: account), now: now)
    }

    private static func check(account: String, password: Secret?, server: ServerName) throws {
        guard !account.isEmpty else { throw KeychainError.param("the account is empty") }
        if let password {
            try PasswordText.validate(password, for: "the password for \(InertText.quoted(account)) on \(server.qualified)")
        }
    }

    static func record(server: ServerName, account: String, password: Secret, comment: String = "") -> Item {
        Item(itemClass: .internetPassword, account: account, server: server.host,
             protocol: server.scheme, port: server.port, comment: comment,
             accessible: .whenUnlocked, synchronizable: true, password: password)
    }
}
