import Foundation
import KeyshelfCrypto
import KeyshelfVault

/// The device's keychain with `SecItem…` semantics (DESIGN §2) over the
/// items of `local.vault`.
///
/// A value type over `[Item]` (tombstones included): callers load the items,
/// run operations, and save `items` back (the facade does this inside
/// `VaultSession.modify`). Queries never see tombstones.
public struct LocalStore: Sendable {
    /// Every item, tombstones included, in insertion order.
    public var items: [Item]

    public init(items: [Item] = []) {
        self.items = items
    }

    /// `SecItemAdd`: stores `item` with creation and modification date `now`.
    ///
    /// A tombstone with the same primary key is revived in place (keeping its
    /// id), so synced copies see one item.
    /// - Throws: `errSecDuplicateItem` when a live item has the same primary
    ///   key; `errSecParam` for an empty account, a `…ThisDeviceOnly` item
    ///   marked synchronizable, or a missing password (but for a Sign in
    ///   with Apple account, which has none) or one that is not
    ///   UTF-8 text without NUL (`PasswordText`).
    public mutating func add(_ item: Item, now: Date = Date()) throws {
        let (new, placement) = try placing(item, now: now)
        switch placement {
        case .end: items.append(new)
        case .tombstone(let index): items[index] = new
        }
    }

    /// The item `add(item, now:)` would put after the last one, when no item
    /// matches `existing` and no tombstone would be revived; nil otherwise
    /// (the caller's add changes an item in place). Changes nothing.
    /// - Throws: what `add` throws.
    public func appended(_ item: Item, unlessAny existing: ItemQuery, now: Date) throws -> Item? {
        guard items.firstIndex(inPlace: existing.matches) == nil else { return nil }
        let (new, placement) = try placing(item, now: now)
        return placement == .end ? new : nil
    }

    /// Where `add` puts a new item.
    public enum Placement: Sendable, Equatable {
        /// After the last item.
        case end
        /// Over the tombstone at this index of `items` (revived, keeping its id).
        case tombstone(Int)
    }

    /// What `add(item, now:)` would store and where, changing nothing.
    /// - Returns: `item` as stored (not deleted, both dates `now`, a revived tombstone's id).
    /// - Throws: what `add` throws.
    public func placing(_ item: Item, now: Date) throws -> (item: Item, placement: Placement) {
        try Self.validate(item)
        if let password = item.password { try PasswordText.validate(password, for: Self.describe(item)) }
        if items.firstIndex(inPlace: { !$0.pointee.isDeleted && item.hasPrimaryKey(of: $0) }) != nil {
            throw KeychainError.duplicate("\(Self.describe(item)) is already saved")
        }
        var new = item
        new.isDeleted = false
        new.creationDate = now
        new.modificationDate = now
        guard let tomb = items.firstIndex(inPlace: { $0.pointee.isDeleted && item.hasPrimaryKey(of: $0) }) else { return (new, .end) }
        new.id = items[tomb].id
        return (new, .tombstone(tomb))
    }

    /// `SecItemCopyMatching`: the items matching `query`, in stored order.
    ///
    /// - Parameters:
    ///   - limit: `.one` returns the first match only.
    ///   - returnData: when false, passwords and OAuth refresh tokens are left out (nil) of the result.
    ///   - userPresence: called once, before releasing the password of an item
    ///     whose `accessControl` is `userPresence`; it re-asks the master
    ///     password and returns whether it was right.
    /// - Throws: `errSecItemNotFound` when nothing matches; `errSecAuthFailed`
    ///   when the user-presence check fails.
    public func copyMatching(
        _ query: ItemQuery, limit: MatchLimit = .all, returnData: Bool = false,
        userPresence: () -> Bool = { false }
    ) throws -> [Item] {
        var found: [Item] = []
        for index in items.indices(inPlace: query.matches) {
            found.append(items[index])
            if limit == .one { break }
        }
        guard !found.isEmpty else { throw KeychainError.notFound(Self.describe(query)) }
        if returnData {
            if found.contains(where: { $0.accessControl == .userPresence }), !userPresence() {
                throw KeychainError(.authFailed, "the master password was not confirmed")
            }
        } else {
            for i in found.indices {
                found[i].password = nil
                found[i].oauthRefreshToken = nil
            }
        }
        return found
    }

    /// `SecItemUpdate`: applies `changes` to every item matching `query`.
    /// - Returns: how many items changed.
    /// - Throws: `errSecItemNotFound` when nothing matches; `errSecDuplicateItem`
    ///   when the change would give two live items one primary key;
    ///   `errSecParam` as for `add` (a new password is checked with
    ///   `PasswordText`; a legacy password left unchanged is not). Nothing
    ///   changes when it throws.
    @discardableResult
    public mutating func update(_ query: ItemQuery, with changes: ItemChanges, now: Date = Date()) throws -> Int {
        let indices = items.indices(inPlace: query.matches)
        guard !indices.isEmpty else { throw KeychainError.notFound(Self.describe(query)) }
        if let password = changes.password { try PasswordText.validate(password, for: Self.describe(items[indices[0]])) }
        var updated = items
        for i in indices {
            changes.apply(to: &updated[i])
            updated[i].modificationDate = now
            try Self.validate(updated[i])
        }
        if indices.count <= 8 {
            // Only changed items can collide: compare each with every other live item.
            for i in indices {
                let item = updated[i]
                if updated.indices.contains(where: { $0 != i && !updated[$0].isDeleted && updated[$0].hasPrimaryKey(of: item) }) {
                    throw KeychainError.duplicate("\(Self.describe(item)) is already saved")
                }
            }
        } else {
            var keys = Set<PrimaryKey>()
            for item in updated where !item.isDeleted && !keys.insert(item.primaryKey).inserted {
                throw KeychainError.duplicate("\(Self.describe(item)) is already saved")
            }
        }
        items = updated
        return indices.count
    }

    /// `SecItemDelete`: turns every item matching `query` into a tombstone
    /// dated `now` (DESIGN §6).
    /// - Returns: how many items were deleted.
    /// - Throws: `errSecItemNotFound` when nothing matches.
    @discardableResult
    public mutating func delete(_ query: ItemQuery, now: Date = Date()) throws -> Int {
        var count = 0
        for i in items.indices(inPlace: query.matches) {
            items[i].markDeleted(at: now)
            count += 1
        }
        guard count > 0 else { throw KeychainError.notFound(Self.describe(query)) }
        return count
    }

    static func validate(_ item: Item) throws {
        if item.account.isEmpty { throw KeychainError.param("the account is empty") }
        if item.password == nil && item.signInWithApple == nil { throw KeychainError.param("no password given for \(describe(item))") }
        if item.synchronizable && item.accessible.isThisDeviceOnly {
            throw KeychainError.param("\(describe(item)) is \(item.accessible) and cannot be synchronizable")
        }
        if item.itemClass == .internetPassword && item.server.isEmpty {
            throw KeychainError.param("the server is empty")
        }
    }

    static func describe(_ item: Item) -> String {
        switch item.itemClass {
        case .internetPassword:
            let server = item.serverName?.qualified ?? item.server
            return "the password for \(InertText.quoted(item.account)) on \(server)"
        case .genericPassword:
            return "the password for \(InertText.quoted(item.account)) of service \(InertText.quoted(item.service))"
        }
    }

    static func describe(_ query: ItemQuery) -> String {
        var parts: [String] = []
        if let account = query.account { parts.append("\(InertText.quoted(account))") }
        if let server = query.server {
            let name = ServerName(host: server, port: query.port ?? 0, scheme: query.protocol ?? "https")
            parts.append("on \(name.qualified)")
        }
        if let service = query.service { parts.append("of service \(InertText.quoted(service))") }
        return parts.isEmpty ? "no matching item" : "no saved password for " + parts.joined(separator: " ")
    }
}
