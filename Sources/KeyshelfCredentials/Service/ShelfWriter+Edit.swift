import Foundation
import KeyshelfCrypto
import KeyshelfVault

/// What `keyshelf edit` changes in an item besides its password (issue 13
/// rule 5); nil fields stay as they are.
public struct MetadataChanges: Sendable, Equatable {
    /// `kSecAttrLabel`.
    public var label: String?
    /// `kSecAttrComment`: the notes (several lines allowed).
    public var notes: String?
    /// A new account name.
    public var account: String?
    /// A new server (scheme, host and port).
    public var server: ServerName?
    /// Move the item to this store.
    public var store: Store?

    public init(label: String? = nil, notes: String? = nil, account: String? = nil, server: ServerName? = nil, store: Store? = nil) {
        self.label = label
        self.notes = notes
        self.account = account
        self.server = server
        self.store = store
    }
}

extension ShelfWriter {
    func edit(server pattern: ServerPattern, account: String, in filter: StoreFilter, _ changes: MetadataChanges) throws -> [Store] {
        guard let server = try reader.server(matching: pattern, account: account, in: filter) else {
            throw KeychainError.notFound("no saved password for \(InertText.quoted(account)) on \(pattern.display)")
        }
        if let renamed = changes.account, renamed.isEmpty { throw KeychainError.param("the new account is empty") }
        let newServer = changes.server ?? server, newAccount = changes.account ?? account
        let now = Date()
        let sameHost = newServer.host == server.host
        return try mutate(near: server.host, keepsHosts: sameHost) { items, consent, lookup in
            let query = ItemQuery.internet(server, account: account)
            // Each store's first item of the account, found once: the edits below only change items in
            // place or (a move, from one store) append to the other store, so these positions hold.
            let sources = filter.stores.compactMap { store in
                lookup.firstIndex(in: items[store], of: store, where: query.matches).map { (store: store, index: $0) }
            }
            guard !sources.isEmpty else {
                throw KeychainError.notFound("no saved password for \(InertText.quoted(account)) on \(server.qualified)")
            }
            if changes.store != nil, sources.count > 1 {
                throw KeychainError.param("\(InertText.quoted(account)) on \(server.qualified) is in both stores; say which copy to move with --local or --shared")
            }
            var result: [Store] = []
            for (source, index) in sources {
                var item = items[source][index]
                let target = changes.store ?? source
                if let label = changes.label { item.label = label }
                if let notes = changes.notes { item.comment = notes }
                item.account = newAccount
                item.server = newServer.host
                item.protocol = newServer.scheme
                item.port = newServer.port
                if target == .shared {
                    guard !item.accessible.isThisDeviceOnly, item.accessControl == .none else {
                        throw KeychainError.param("\(InertText.quoted(account)) on \(server.qualified) stays on this device (\(item.accessible), or it asks the master password) and cannot move to the shared credentials")
                    }
                }
                item.synchronizable = target == .shared
                // An item already saved under the new key is overwritten only with consent. A key
                // that stays in its store has no other holder: that search (a pass over the store) is skipped.
                let key = item
                let keyMoved = target != source || !key.hasPrimaryKey(of: items[source][index])
                let holdsKey = { (other: UnsafePointer<Item>) in other.pointee.id != key.id && !other.pointee.isDeleted && key.hasPrimaryKey(of: other) }
                if keyMoved, let occupant = sameHost ? lookup.firstIndex(in: items[target], of: target, where: holdsKey)
                                                     : items[target].firstIndex(inPlace: holdsKey) {
                    guard consent.ask(.update(server: newServer, account: newAccount)) != .declined else {
                        throw KeychainError.canceled("replacing the saved password for \(InertText.quoted(newAccount)) on \(newServer.qualified) was declined")
                    }
                    // Replaced as an update replaces a password: the occupant's stays in the history.
                    item.absorbHistory(of: items[target][occupant], changed: now)
                    items[target][occupant].markDeleted(at: now)
                }
                item.modificationDate = now
                if target == source {
                    items[source][index] = item
                } else {
                    items[source][index].markDeleted(at: now)
                    item.id = UUID()
                    try Self.editing(target, of: &items) { store in
                        try store.add(item, now: now)
                        // A move keeps the item's creation date.
                        if let moved = store.items.firstIndex(where: { !$0.isDeleted && $0.hasPrimaryKey(of: item) }) {
                            store.items[moved].creationDate = item.creationDate
                        }
                    }
                }
                result.append(target)
            }
            return Store.allCases.filter(result.contains)
        }
    }
}

extension ShelfWriter {
    func editGeneric(service: String, account: String, _ changes: MetadataChanges) throws {
        guard changes.server == nil, changes.store == nil else {
            throw KeychainError.param("a generic password has no server; its store follows --synchronizable when it is added")
        }
        if let renamed = changes.account, renamed.isEmpty { throw KeychainError.param("the new account is empty") }
        let query = ItemQuery(itemClass: .genericPassword, account: account, service: service)
        let now = Date()
        try mutate { items, consent in
            var found: (store: Store, index: Int)?
            for store in Store.allCases where found == nil {
                found = items[store].firstIndex(inPlace: query.matches).map { (store, $0) }
            }
            guard let (store, index) = found else {
                throw KeychainError.notFound("no saved password for \(InertText.quoted(account)) of service \(InertText.quoted(service))")
            }
            if let renamed = changes.account, renamed != account,
               let occupant = items[store].firstIndex(inPlace: ItemQuery(itemClass: .genericPassword, account: renamed, service: service).matches) {
                guard consent.ask(.updateService(service: service, account: renamed)) != .declined else {
                    throw KeychainError.canceled("replacing the saved password for \(InertText.quoted(renamed)) of service \(InertText.quoted(service)) was declined")
                }
                items[store][index].absorbHistory(of: items[store][occupant], changed: now)
                items[store][occupant].markDeleted(at: now)
            }
            try Self.editing(store, of: &items) { local in
                _ = try local.update(query, with: ItemChanges(account: changes.account, label: changes.label, comment: changes.notes), now: now)
            }
        }
    }
}
