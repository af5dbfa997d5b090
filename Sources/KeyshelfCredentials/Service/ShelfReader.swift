import Foundation
import KeyshelfCrypto
import KeyshelfVault

/// The read side of `Keyshelf`: the snapshot of the vault's items, the
/// listing and search built on it, and the lookups that release a secret
/// (get, lookup, reveal; `ShelfReader+Lookup`, `GenericPasswords`).
///
/// The snapshot is loaded at `init` / `reload()` and replaced after each
/// change (`ShelfWriter`); the listing, the generic passwords and their
/// search indexes are built on first use after each replacement. It asks consent only to release a shared
/// password (DESIGN §3) and the master password for `userPresence` items.
final class ShelfReader {
    let vault: any CredentialVault
    /// Answers release consent here and every consent of `ShelfWriter`.
    var consent: any Consent
    /// Re-asks the master password for `userPresence` items; nil: nobody can be asked.
    var userPresence: (any UserPresencePrompt)?

    private(set) var snapshot: VaultContents
    /// `vault.revision` when `snapshot` was taken.
    private(set) var snapshotRevision: Int
    /// Built on the first listing or search, so one-shot commands (`get`,
    /// `add`, `rm`, `list SERVER`, the git helper) never pay for it.
    private var cachedListing: Listing?
    private var listing: Listing {
        if let cachedListing { return cachedListing }
        let built = Listing(snapshot)
        cachedListing = built
        return built
    }
    /// Built on the first search: listings do not need the lower-cased keys.
    private var cachedIndex: SearchIndex?
    private var index: SearchIndex {
        if let cachedIndex { return cachedIndex }
        let built = SearchIndex(listing)
        cachedIndex = built
        return built
    }
    /// Every live generic password of both stores, sorted as
    /// `genericEntries` returns them; built on first use.
    private var cachedGenerics: [GenericEntry]?
    var generics: [GenericEntry] {
        if let cachedGenerics { return cachedGenerics }
        let built = Self.genericEntries(of: snapshot)
        cachedGenerics = built
        return built
    }
    /// The search keys of `generics`, built on the first search.
    private var cachedGenericIndex: SearchIndex?
    private var genericIndex: SearchIndex {
        if let cachedGenericIndex { return cachedGenericIndex }
        let built = SearchIndex(generics)
        cachedGenericIndex = built
        return built
    }

    /// Each store's `HostIndex`, built on the second lookup of one server in
    /// the snapshot (`items(at:)`).
    private var hostIndexes: [Store: HostIndex] = [:]
    /// Lookups of one server since the snapshot was taken.
    private var hostLookups = 0

    init(vault: any CredentialVault, consent: any Consent, userPresence: (any UserPresencePrompt)?) throws {
        self.vault = vault
        self.consent = consent
        self.userPresence = userPresence
        snapshot = try vault.loadItems()
        snapshotRevision = vault.revision
    }

    func reload() throws {
        adopt(try vault.loadItems())
    }

    /// Keeps the snapshot, listing and index when the vault's revision did not move.
    func refresh() throws -> Bool {
        let items = try vault.loadItems()
        guard vault.revision != snapshotRevision else { return false }
        adopt(items)
        return true
    }

    /// Makes `items` (what the vault holds at its current revision) the snapshot.
    /// - Parameter indexes: host indexes that hold for `items` up to their
    ///   `count` (a write that kept every item's host and position); they
    ///   are extended by the items after it. Nil: built again when needed.
    func adopt(_ items: VaultContents, indexes: [Store: HostIndex]? = nil) {
        snapshot = items
        snapshotRevision = vault.revision
        cachedListing = nil
        cachedIndex = nil
        cachedGenerics = nil
        cachedGenericIndex = nil
        hostIndexes = [:]
        hostLookups = 0
        for (store, var index) in indexes ?? [:] where index.count <= items[store].count {
            index.extend(to: items[store])
            hostIndexes[store] = index
        }
    }

    /// The host indexes of the snapshot, built now when missing, and each
    /// store's positions of the items whose `server` is `host`: what a write
    /// of that host's items looks through (`ShelfWriter.mutate(near:)`).
    func indexes(near host: String) -> (indexes: [Store: HostIndex], positions: [Store: [Int]]) {
        var positions: [Store: [Int]] = [:]
        for store in Store.allCases {
            let list = snapshot[store]
            if hostIndexes[store]?.count != list.count { hostIndexes[store] = HostIndex(list) }
            positions[store] = hostIndexes[store]!.positions(of: host, in: list)
        }
        return (hostIndexes, positions)
    }

    /// Forgets which revision the snapshot is, so the next `refresh()` reloads.
    func invalidate() {
        snapshotRevision = -1
    }

    // MARK: - Listing and search (no secrets)

    func domains(in filter: StoreFilter) -> [DomainSummary] {
        filter == .both ? listing.domains : listing.domains.compactMap { restrict($0, to: filter) }
    }

    func accounts(of server: ServerName, in filter: StoreFilter) -> [CredentialEntry] {
        // The server's own items: one domain needs no sorted listing.
        Listing.entries(of: server, in: items(at: server.host)).filter { filter.contains($0.store) }
    }

    func entries(in filter: StoreFilter) -> [CredentialEntry] {
        filter == .both ? listing.entries : listing.entries.filter { filter.contains($0.store) }
    }

    func search(_ text: String, in filter: StoreFilter) -> [CredentialEntry] {
        // Every entry contains the empty text (`list` through the agent): no search keys needed.
        if text.isEmpty { return entries(in: filter) }
        let found = index.matches(text)
        let entries = listing.entries
        return filter == .both
            ? found.map { entries[$0] }
            : found.compactMap { filter.contains(entries[$0].store) ? entries[$0] : nil }
    }

    func searchPositions(_ text: String) -> [Int] {
        index.matches(text)
    }

    func searchGenerics(_ text: String, in filter: StoreFilter) -> [GenericEntry] {
        let generics = self.generics
        if text.isEmpty { return generics.filter { filter.contains($0.store) } }
        return genericIndex.matches(text).compactMap { filter.contains(generics[$0].store) ? generics[$0] : nil }
    }

    func searchGenericPositions(_ text: String) -> [Int] {
        genericIndex.matches(text)
    }

    func searchDomains(_ text: String, in filter: StoreFilter) -> [DomainSummary] {
        let found = index.matches(text)
        let listing = self.listing
        var out: [DomainSummary] = []
        var previous = -1
        // Matches are ascending and a domain's entries are contiguous: each domain appears in one run.
        for i in found where filter.contains(listing.entries[i].store) {
            let domain = listing.domain(ofEntry: i)
            guard domain != previous else { continue }
            previous = domain
            if let summary = restrict(listing.domains[domain], to: filter) { out.append(summary) }
        }
        return out
    }

    // MARK: - Internals

    /// The items of the snapshot whose `server` is `host`, each store's in
    /// its order: every item an `ItemQuery` with that `server` can match, so
    /// a lookup of one server matches these instead of the whole snapshot.
    ///
    /// The first read of a snapshot scans it; the second builds the index
    /// (about three scans' worth at 100k), which later lookups read, so a
    /// `get` right after a write costs one scan.
    /// - Parameter indexing: false for the lookup a write makes before it
    ///   saves (`server(matching:)`): the save replaces the snapshot, so that
    ///   lookup scans (or reads an index already built) and never builds one.
    func items(at host: String, indexing: Bool = true) -> VaultContents {
        if indexing { hostLookups += 1 }
        var found = VaultContents()
        for store in Store.allCases {
            let list = snapshot[store]
            if hostIndexes[store] == nil && indexing && hostLookups > 1 { hostIndexes[store] = HostIndex(list) }
            if let index = hostIndexes[store], index.count == list.count {
                found[store] = index.positions(of: host, in: list).map { list[$0] }
            } else {
                found[store] = list.indices(inPlace: { $0.pointee.server == host }).map { list[$0] }
            }
        }
        return found
    }

    /// Gives `body` a user-presence check; a canceled master-password dialog
    /// becomes `errSecUserCanceled`, a wrong password `errSecAuthFailed`.
    func withUserPresence<T>(reason: String, _ body: (() -> Bool) throws -> T) throws -> T {
        var canceled = false
        let check = { [userPresence, vault] () -> Bool in
            guard let typed = userPresence?.askMasterPassword(reason: reason) else {
                canceled = true
                return false
            }
            return vault.verifyPassword(typed)
        }
        do {
            return try body(check)
        } catch let error as KeychainError where error.status == .authFailed && canceled {
            throw KeychainError.canceled("the master password was not entered")
        }
    }

    /// The password of item `id` in `store` of the snapshot, through the
    /// user-presence check (reveal, generic get and reveal).
    /// - Parameter items: the part of `store` to look in (`items(at:)`), or
    ///   nil for the whole store.
    /// - Returns: the item as `copyMatching` releases it (password included).
    func release(_ id: UUID, in store: Store, among items: [Item]? = nil, reason: String) throws -> Item? {
        let local = LocalStore(items: items ?? snapshot[store])
        return try withUserPresence(reason: reason) { check in
            try local.copyMatching(.item(id), limit: .one, returnData: true, userPresence: check).first
        }
    }

    private func restrict(_ domain: DomainSummary, to filter: StoreFilter) -> DomainSummary? {
        var d = domain
        if !filter.contains(.local) { d.localCount = 0 }
        if !filter.contains(.shared) { d.sharedCount = 0 }
        return d.accountCount > 0 ? d : nil
    }
}
