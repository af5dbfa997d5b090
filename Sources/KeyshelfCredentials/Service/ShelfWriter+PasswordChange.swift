import Foundation
import KeyshelfCrypto
import KeyshelfVault

/// What `Keyshelf.changePassword` did in each store (issue 13 rule 2); nil
/// for a store it did not write.
public struct PasswordChangeReport: Sendable, Equatable {
    /// The server the password was saved for (a scheme-less SERVER resolved).
    public var server: ServerName
    public var local: AddOutcome?
    public var shared: AddOutcome?

    public init(server: ServerName, local: AddOutcome? = nil, shared: AddOutcome? = nil) {
        self.server = server
        self.local = local
        self.shared = shared
    }

    /// The outcome in `store`, nil when that store was not written.
    public subscript(store: Store) -> AddOutcome? {
        get { store == .local ? local : shared }
        set { if store == .local { local = newValue } else { shared = newValue } }
    }

    /// The stores written or found up to date, local first.
    public var stores: [Store] { Store.allCases.filter { self[$0] != nil } }
}

extension ShelfWriter {
    func changePassword(
        _ password: Secret, server pattern: ServerPattern, account: String, in filter: StoreFilter,
        newItems: Store, label: String?, comment: String?
    ) throws -> PasswordChangeReport {
        guard !account.isEmpty else { throw KeychainError.param("the account is empty") }
        let server = try reader.server(matching: pattern, account: account, in: filter) ?? pattern.newServer
        try PasswordText.validate(password, for: "the password for \(InertText.quoted(account)) on \(server.qualified)")
        let fallback = filter == .both ? newItems : filter.stores[0]
        let query = ItemQuery.internet(server, account: account)
        let nearby = reader.items(at: server.host, indexing: false)
        if label == nil, !filter.stores.contains(where: { nearby[$0].firstIndex(inPlace: query.matches) != nil }) {
            // New everywhere: the append path writes one item (`add`).
            var report = PasswordChangeReport(server: server)
            report[fallback] = try add(server: server, account: account, password: password, to: fallback, comment: comment,
                                       accessible: .whenUnlocked, accessControl: .none)
            return report
        }
        let now = Date()
        return try mutate(near: server.host, keepsHosts: true) { items, consent, lookup in
            // One pass per store (or the host's few items) finds every item of the account; the checks below look at those only.
            var matching: [Store: [Int]] = [:]
            for store in filter.stores { matching[store] = lookup.indices(in: items[store], of: store, where: query.matches) }
            let holders = filter.stores.filter { matching[$0]?.isEmpty == false }
            let targets = holders.isEmpty ? [fallback] : holders
            for store in targets {
                try Self.refusePassword(onAppleAccount: account, at: server, in: items[store], matching: matching[store] ?? [])
            }
            let differs = targets.contains { store in
                matching[store]?.first.map { items[store][$0].password != password } ?? false
            }
            if differs { try PasswordUpdateConsent.confirm(server: server, account: account, consent: consent) }
            // The one answer covers every store.
            let approved = ApproveAll()
            var report = PasswordChangeReport(server: server)
            for store in targets {
                // Where the account was found, `save` changes that item; else it appends one, which only a scan finds.
                let found = matching[store]?.isEmpty == false
                report[store] = try Self.save(password, server: server, account: account, comment: comment, oauth: nil, in: store, of: &items,
                                              accessible: .whenUnlocked, accessControl: .none, consent: approved, now: now,
                                              lookup: found ? lookup : .scanning)
                if let label, (found ? matching[store]?.first : items[store].firstIndex(inPlace: query.matches))
                    .map({ items[store][$0].label != label }) ?? false {
                    try Self.editing(store, of: &items) { _ = try $0.update(query, with: ItemChanges(label: label), now: now) }
                    if report[store] == .unchanged { report[store] = .updated }
                }
            }
            return report
        }
    }
}
