import Foundation
import KeyshelfCrypto
import KeyshelfVault

/// What an import plan makes of one login against the saved items (issue 5, "Conflicts").
public enum ImportClass: UInt8, Sendable, Equatable {
    /// No saved item for the server and account: added without a prompt (DESIGN §3).
    case new = 0
    /// A saved item has the same password: skipped.
    case alreadySaved = 1
    /// A saved item has another password: replaced only after consent.
    case update = 2
}

/// What committing an import did with one login.
public enum ImportOutcome: UInt8, Sendable, Equatable {
    /// Stored as a new item (or a tombstone revived).
    case imported = 0
    /// Replaced the password of the saved items (consented).
    case updated = 1
    /// An addition found an item with the same password saved meanwhile: skipped.
    case alreadySaved = 2
    /// An addition found an item with another password saved meanwhile: not replaced.
    case savedMeanwhile = 3
}

/// The one rule of how imported logins meet a store's items, as pure
/// functions (the plan without writing, the commit inside a locked write).
/// KeyshelfTransfer's `ImportPlan` reports with it, and the `planImport` and
/// `importLogins` operations run it where the vault is open.
public enum ImportMerge {
    /// Classifies each of `logins` against `existing` (a store's items,
    /// tombstones included). Writes nothing.
    /// - Returns: one class per login, in order.
    public static func classify(_ logins: [ImportLogin], existing: [Item]) -> [ImportClass] {
        let saved = ItemIndex(existing)
        return logins.map { login in
            let live = saved.live(login.key)
            if live.isEmpty { return .new }
            return live.contains { existing[$0].password == login.password } ? .alreadySaved : .update
        }
    }

    /// Writes `additions` and the consented `updates` into `items` (the
    /// store's items, read again under the vault lock); call inside the
    /// vault's locked write so the import is saved at once or not at all.
    ///
    /// Items saved since the plan was made are respected: an addition whose
    /// key now exists is skipped (same password) or left alone (another
    /// password, which nobody consented to replace); an update whose item is
    /// gone is added.
    /// - Parameters:
    ///   - store: where the items go (`synchronizable` for shared).
    ///   - now: creation / modification date of the written items.
    /// - Returns: the outcome of each addition, then of each update, in order.
    public static func apply(additions: [ImportLogin], updates: [ImportLogin], store: Store,
                             to items: inout [Item], now: Date) -> [ImportOutcome] {
        var index = ItemIndex(items)
        var outcomes: [ImportOutcome] = []
        outcomes.reserveCapacity(additions.count + updates.count)
        for login in additions {
            let live = index.live(login.key)
            if live.isEmpty {
                if let tomb = index.tombstone(login.key) {
                    items[tomb] = newItem(login, id: items[tomb].id, store: store, now: now)
                    index.revive(login.key, at: tomb)
                } else {
                    items.append(newItem(login, id: UUID(), store: store, now: now))
                    index.add(login.key, at: items.count - 1)
                }
                outcomes.append(.imported)
            } else {
                outcomes.append(live.contains { items[$0].password == login.password } ? .alreadySaved : .savedMeanwhile)
            }
        }
        for login in updates {
            let live = index.live(login.key)
            if live.isEmpty {
                items.append(newItem(login, id: UUID(), store: store, now: now))
                index.add(login.key, at: items.count - 1)
                outcomes.append(.imported)
                continue
            }
            for i in live {
                items[i].replacePassword(with: login.password, at: now)
                if !login.comment.isEmpty { items[i].comment = login.comment }
                if !login.otpauth.isEmpty { items[i].otpauth = login.otpauth }
                items[i].modificationDate = now
            }
            outcomes.append(.updated)
        }
        return outcomes
    }

    private static func newItem(_ login: ImportLogin, id: UUID, store: Store, now: Date) -> Item {
        Item(id: id, itemClass: .internetPassword, account: login.account,
             server: login.server.host, protocol: login.server.scheme, port: login.server.port,
             path: login.path, label: login.label, comment: login.comment, otpauth: login.otpauth,
             creationDate: login.creationDate ?? now, modificationDate: now, accessible: .whenUnlocked,
             synchronizable: store == .shared, password: login.password)
    }
}

/// Positions of internet-password items by key, so a 10k-row import stays linear.
struct ItemIndex {
    private var liveItems: [InternetItemKey: [Int]] = [:]
    private var tombstones: [InternetItemKey: Int] = [:]

    init(_ items: [Item]) {
        for (i, item) in items.enumerated() {
            guard let key = InternetItemKey(item) else { continue }
            if item.isDeleted {
                if tombstones[key] == nil { tombstones[key] = i }
            } else {
                liveItems[key, default: []].append(i)
            }
        }
    }

    func live(_ key: InternetItemKey) -> [Int] { liveItems[key] ?? [] }
    func tombstone(_ key: InternetItemKey) -> Int? { tombstones[key] }

    mutating func add(_ key: InternetItemKey, at index: Int) {
        liveItems[key, default: []].append(index)
    }

    mutating func revive(_ key: InternetItemKey, at index: Int) {
        tombstones[key] = nil
        add(key, at: index)
    }
}
