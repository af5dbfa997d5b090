import Foundation
import KeyshelfVault

extension Keyshelf {
    /// An import's plan: each of `logins` classified against the current
    /// items of `store` (`ImportMerge.classify`). Writes nothing, asks nothing.
    /// - Throws: the vault's errors when its items cannot be read.
    public func planImport(_ logins: [ImportLogin], into store: Store) throws -> [ImportClass] {
        ImportMerge.classify(logins, existing: try vault.loadItems()[store])
    }

    /// An import's commit: `additions` and the `updates` the user consented
    /// to (asked by the caller, before this call: no dialog waits while the
    /// vault is locked) written into `store` in one locked, atomic save
    /// (`ImportMerge.apply`); every login is written, or none.
    /// - Returns: the outcome of each addition, then of each update.
    /// - Throws: the vault's errors; the vault is then unchanged.
    public func importLogins(additions: [ImportLogin], updates: [ImportLogin], into store: Store) throws -> [ImportOutcome] {
        let now = Date()
        return try writer.withoutSnapshot {
            try vault.modifyItems { items in
                ImportMerge.apply(additions: additions, updates: updates, store: store, to: &items[store], now: now)
            }
        }
    }

    /// What `keyshelf export` writes from: the live items of both stores,
    /// the local store's first (where both hold an account, export keeps the
    /// local one, as the login flow uses it first), each with only the
    /// attributes an export reads (`exportView`). No consent is asked; the
    /// caller asks before writing the file.
    /// - Throws: the vault's errors when its items cannot be read.
    public func exportableItems() throws -> [Item] {
        let items = try vault.loadItems()
        return (items.local + items.shared).filter { !$0.isDeleted }.map(\.exportView)
    }
}

extension Item {
    /// The attributes an export reads, the rest left at `Item`'s defaults:
    /// id, class, account, service, server, protocol, port, path, label,
    /// comment, `otpauth` and the dates, and the password of an internet
    /// password (a generic password is only counted: its password is left out).
    public var exportView: Item {
        Item(id: id, itemClass: itemClass, account: account, service: service, server: server, protocol: `protocol`,
             port: port, path: path, label: label, comment: comment, otpauth: otpauth, creationDate: creationDate,
             modificationDate: modificationDate, password: itemClass == .internetPassword ? password : nil)
    }
}
