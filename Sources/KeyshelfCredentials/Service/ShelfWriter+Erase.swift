import Foundation
import KeyshelfCrypto
import KeyshelfVault

/// What `Keyshelf.erase` did.
public struct EraseResult: Sendable, Equatable {
    /// Accounts deleted (from one or both stores), sorted.
    public var deleted: [String] = []
    /// Accounts kept because deleting them was declined, sorted.
    public var declined: [String] = []
}

extension ShelfWriter {
    func erase(server: ServerName, account: String?, password: Secret?) throws -> EraseResult {
        let now = Date()
        return try mutate { items, consent in
            let query = ItemQuery.internet(server, account: account)
            var result = EraseResult()
            for store in Store.allCases {
                let matching = items[store].filter { query.matches($0) && $0.signInWithApple == nil && (password == nil || $0.password == password) }
                for item in matching {
                    if result.declined.contains(item.account) { continue }
                    if !result.deleted.contains(item.account) {
                        guard consent.ask(.delete(server: server, account: item.account)) != .declined else {
                            result.declined.append(item.account)
                            continue
                        }
                        result.deleted.append(item.account)
                    }
                    _ = try Self.editing(store, of: &items) { try $0.delete(.item(item.id), now: now) }
                }
            }
            result.deleted.sort()
            result.declined.sort()
            return result
        }
    }
}
