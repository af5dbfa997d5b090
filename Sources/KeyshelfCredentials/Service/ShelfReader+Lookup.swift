import Foundation
import KeyshelfCrypto
import KeyshelfVault

extension ShelfReader {
    func get(server pattern: ServerPattern, account: String?, in filter: StoreFilter) throws -> CredentialRecord {
        // Every query below names the pattern's host: its items are all they can match.
        let nearby = items(at: pattern.host)
        let (server, chosen, consent) = try choose(pattern, account: account, in: filter, among: nearby)
        if filter.contains(.local), let record = try localLookup(server: server, account: chosen, among: nearby.local) {
            return record
        }
        if filter.contains(.shared),
           let first = try SharedWebCredentials(items: nearby.shared).request(server: server, account: chosen, consent: consent).first {
            var record = CredentialRecord(first)
            record.metadata = nearby.shared.firstIndex(inPlace: ItemQuery.internet(server, account: chosen).matches)
                .map { ItemMetadata(nearby.shared[$0]) }
            return record
        }
        throw KeychainError.notFound("no saved password for \(InertText.quoted(chosen)) on \(server.qualified)")
    }

    func server(matching pattern: ServerPattern, account: String?, in filter: StoreFilter) throws -> ServerName? {
        // The lookup of a write (change, edit, delete), whose save replaces the snapshot.
        let nearby = items(at: pattern.host, indexing: false)
        let servers = Set(matches(pattern, account: account, in: filter, among: nearby).map(\.server))
        guard servers.count <= 1 else { throw Self.severalServers(pattern, servers.sorted(), account: account) }
        return servers.first
    }

    func accounts(of pattern: ServerPattern, in filter: StoreFilter) -> [CredentialEntry] {
        if let exact = pattern.exact { return accounts(of: exact, in: filter) }
        var found: [CredentialEntry] = []
        let query = pattern.query()
        let nearby = items(at: pattern.host)
        for store in filter.stores {
            let list = nearby[store]
            for i in list.indices(inPlace: query.matches) {
                guard let server = list[i].serverName else { continue }
                found.append(CredentialEntry(item: list[i], server: server, store: store))
            }
        }
        return found.sorted { a, b in
            a.server != b.server ? a.server < b.server
                : a.account != b.account ? a.account < b.account : (a.store == .local && b.store == .shared)
        }
    }

    func lookup(server: ServerName, account: String?, passwordsOnly: Bool) throws -> CredentialRecord? {
        let nearby = items(at: server.host)
        let local = LocalStore(items: nearby.local)
        if let first = (try? local.copyMatching(.internet(server, account: account)))?
            .filter({ !passwordsOnly || $0.signInWithApple == nil }).min(by: { $0.account < $1.account }),
           let record = try localLookup(server: server, account: first.account, passwordsOnly: passwordsOnly, among: nearby.local) {
            return record
        }
        let released = (try? SharedWebCredentials(items: nearby.shared)
            .request(server: server, account: account, consent: consent)) ?? []
        if let first = released.first { return CredentialRecord(first) }
        return passwordsOnly ? nil : sharedAppleAccount(server: server, account: account)
    }

    func reveal(_ entry: CredentialEntry, for purpose: RevealPurpose) throws -> Secret {
        let found = try release(entry.id, in: entry.store,
                                reason: "\(purpose.rawValue) the password for \(InertText.quoted(entry.account)) on \(entry.server.qualified)")
        guard let password = found?.password else {
            if found?.signInWithApple != nil { throw Self.signsInWithApple(entry.account, entry.server) }
            throw KeychainError.notFound("the password for \(InertText.quoted(entry.account)) on \(entry.server.qualified) is gone")
        }
        return password
    }

    // MARK: - Internals

    /// One match of a pattern: where it is and whose it is.
    struct Match {
        var server: ServerName
        var account: String
        var store: Store
    }

    /// The live internet passwords of the stores in `filter` that `pattern`
    /// matches; with `passwordsOnly`, not the Sign in with Apple accounts.
    /// - Parameter nearby: `items(at: pattern.host)` when the caller has it.
    func matches(_ pattern: ServerPattern, account: String?, in filter: StoreFilter, passwordsOnly: Bool = false,
                 among nearby: VaultContents? = nil) -> [Match] {
        let query = pattern.query(account: account)
        let nearby = nearby ?? items(at: pattern.host)
        var found: [Match] = []
        for store in filter.stores {
            let list = nearby[store]
            for i in list.indices(inPlace: query.matches) where !passwordsOnly || list[i].signInWithApple == nil {
                if let server = list[i].serverName { found.append(Match(server: server, account: list[i].account, store: store)) }
            }
        }
        return found
    }

    /// The server and account `get` releases, and the consent to release it
    /// with (the user's choice in the release sheet counts as the release's consent).
    private func choose(_ pattern: ServerPattern, account: String?, in filter: StoreFilter, among nearby: VaultContents) throws
        -> (server: ServerName, account: String, consent: any Consent) {
        let found = matches(pattern, account: account, in: filter, passwordsOnly: true, among: nearby)
        let servers = Set(found.map(\.server)).sorted()
        guard let server = servers.first else {
            if let apple = matches(pattern, account: account, in: filter, among: nearby).first { throw Self.signsInWithApple(apple.account, apple.server) }
            let who = account.map { "\(InertText.quoted($0)) on " } ?? ""
            throw KeychainError.notFound("no saved password for \(who)\(pattern.display)")
        }
        guard servers.count == 1 else { throw Self.severalServers(pattern, servers, account: account, found: found) }
        let accounts = Set(found.map(\.account)).sorted()
        if accounts.count == 1 { return (server, accounts[0], consent) }
        let listed = accounts.map(InertText.quoted).joined(separator: ", ")
        switch consent.ask(.release(server: server, accounts: accounts)) {
        case .declined:
            throw KeychainError.canceled("choosing one of the accounts \(listed) on \(server.qualified) was declined; give the ACCOUNT")
        case .approved:
            throw KeychainError.param("\(server.qualified) has several accounts: \(listed); give the ACCOUNT")
        case .chose(let chosen):
            guard accounts.contains(chosen) else { throw KeychainError.param("\(InertText.quoted(chosen)) is not an account on \(server.qualified)") }
            return (server, chosen, ChosenRelease(chosen: .release(server: server, accounts: [chosen]), other: consent))
        }
    }

    /// The `errSecParam` of a scheme-less lookup that met several servers.
    static func severalServers(_ pattern: ServerPattern, _ servers: [ServerName], account: String?, found: [Match] = []) -> KeychainError {
        let names = servers.map { server in
            let accounts = Set(found.filter { $0.server == server }.map(\.account)).sorted()
            return account != nil || accounts.isEmpty ? server.qualified
                : "\(server.qualified) (\(accounts.map(InertText.quoted).joined(separator: ", ")))"
        }
        let who = account.map { " for \(InertText.quoted($0))" } ?? ""
        return KeychainError.param("\(pattern.display)\(who) is saved for several protocols: \(names.joined(separator: ", ")); give the scheme, e.g. \(servers[0].qualified)")
    }

    /// The local item of `account` at `server`, asking the master password for
    /// a `userPresence` one; with `passwordsOnly`, never a Sign in with Apple account.
    /// - Parameter nearby: the local items at `server.host` (`items(at:)`).
    func localLookup(server: ServerName, account: String, passwordsOnly: Bool = true, among nearby: [Item]) throws -> CredentialRecord? {
        guard let first = (try? LocalStore(items: nearby).copyMatching(.internet(server, account: account)))?
            .first(where: { !passwordsOnly || $0.signInWithApple == nil }) else { return nil }
        let found = try release(first.id, in: .local, among: nearby,
                                reason: "use the password for \(InertText.quoted(first.account)) on \(server.qualified)")
        return found.map { CredentialRecord(local: $0, server: server) }
    }
}

/// The consent of a `get` whose account the user chose in the release
/// sheet: that choice already released it, so the shared lookup does not ask again.
private struct ChosenRelease: Consent {
    var chosen: ConsentRequest
    var other: any Consent

    func ask(_ request: ConsentRequest) -> ConsentAnswer {
        request == chosen ? .approved : other.ask(request)
    }

    var answersWithoutWaiting: Bool { other.answersWithoutWaiting }

    var isWaitingForAnswer: Bool { other.isWaitingForAnswer }
}
