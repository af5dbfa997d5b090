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

extension Keyshelf {
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
