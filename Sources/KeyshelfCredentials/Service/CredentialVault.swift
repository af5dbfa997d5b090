import Foundation
import KeyshelfCrypto
import KeyshelfVault

/// The items of both stores as the facade reads and writes them: the vault's
/// own `VaultContents` (`local` / `shared` `[Item]`, subscript by `Store`).
public typealias StoredItems = VaultContents

/// Where the facade keeps items: an unlocked vault (`VaultSession`, which
/// conforms below) or, in tests and the demo, memory (`MemoryVault`).
public protocol CredentialVault: AnyObject {
    /// The current items of both stores, tombstones included.
    /// - Throws: the vault's error (`VaultError`) when the files cannot be read.
    func loadItems() throws -> StoredItems
    /// Locked read-modify-write: `body` edits the current items and they are
    /// saved (atomically) when it returns; nothing is saved when it throws.
    func modifyItems<T>(_ body: (inout StoredItems) throws -> T) throws -> T
    /// `modifyItems`, telling `body` whether the items it edits are still
    /// those `loadItems()` gave at `revision` (nothing changed since), so
    /// that positions found in them hold (`ShelfWriter`'s lookups through
    /// the reader's `HostIndex`).
    func modifyItems<T>(since revision: Int, _ body: (inout StoredItems, _ unchanged: Bool) throws -> T) throws -> T
    /// Locked addition: `body` reads the current items and returns one item
    /// to add after the last one of `store`, or nil when the change is not a
    /// plain addition (nothing is written; use `modifyItems`). Only that item
    /// is encoded and written.
    /// - Returns: whether the item was added.
    /// - Throws: what `body` throws; the vault's errors.
    func addItem(to store: Store, _ body: (StoredItems) throws -> Item?) throws -> Bool
    /// Whether `password` is the master password (for `userPresence` items).
    func verifyPassword(_ password: Secret) -> Bool
    /// `keyshelf passwd`: checks `current` (`verifyPassword`), then makes
    /// `newPassword` the master password (for a `VaultSession`: new vault
    /// keys, both files re-sealed, the Argon2id limits kept).
    /// - Throws: `KeychainError` `errSecAuthFailed` when `current` is not the
    ///   master password (nothing changes; a Keychain status, so that the
    ///   agent relays it instead of reading it as keys that stopped fitting);
    ///   the vault's errors.
    func changeMasterPassword(from current: Secret, to newPassword: Secret) throws
    /// Changes whenever `loadItems()` would return other items than before
    /// (read it after `loadItems()`); lets `Keyshelf.refresh()` keep its
    /// listing when nothing changed.
    var revision: Int { get }
}

extension CredentialVault {
    /// `modifyItems`, never claiming the items unchanged: for vaults that do not track it.
    public func modifyItems<T>(since revision: Int, _ body: (inout StoredItems, _ unchanged: Bool) throws -> T) throws -> T {
        try modifyItems { try body(&$0, false) }
    }

    /// `addItem` through `modifyItems`, for vaults without a cheaper way.
    public func addItem(to store: Store, _ body: (StoredItems) throws -> Item?) throws -> Bool {
        try modifyItems { items in
            guard let item = try body(items) else { return false }
            items[store].append(item)
            return true
        }
    }
}

extension VaultSession: CredentialVault {
    /// `modify(since:_:)`.
    public func modifyItems<T>(since revision: Int, _ body: (inout StoredItems, _ unchanged: Bool) throws -> T) throws -> T {
        try modify(since: revision, body)
    }

    /// `contents()`.
    public func loadItems() throws -> StoredItems {
        try contents()
    }

    /// `modify(_:)`: the vault's locked read-modify-write with atomic save.
    public func modifyItems<T>(_ body: (inout StoredItems) throws -> T) throws -> T {
        try modify(body)
    }

    /// `add(to:_:)`: an appendix of the vault file when it can take one.
    public func addItem(to store: Store, _ body: (StoredItems) throws -> Item?) throws -> Bool {
        try add(to: store, body)
    }

    /// `verifyPassword(_:)` (one Argon2id run, constant-time compare), then
    /// `changePassword(to:limits:)` with the current limits. A wrong `current`
    /// is reported with the text a wrong password gets when opening the vault.
    public func changeMasterPassword(from current: Secret, to newPassword: Secret) throws {
        guard verifyPassword(current) else {
            throw KeychainError(.authFailed, VaultError.wrongPassword(file: directory.path(of: .local)).description)
        }
        try changePassword(to: newPassword, limits: nil)
    }
}

/// An in-memory `CredentialVault` for tests and the demo; like
/// `VaultSession`, it refuses to save a `…ThisDeviceOnly` item in `shared`.
public final class MemoryVault: CredentialVault, @unchecked Sendable {
    private let lock = NSLock()
    private var items: VaultContents
    private var masterPassword: Secret
    private var saves = 0

    /// A vault holding `items`, unlocked by `masterPassword`.
    public init(items: StoredItems = StoredItems(), masterPassword: Secret = Secret(utf8: "correct horse")) {
        self.items = items
        self.masterPassword = masterPassword
    }

    /// How many times `modify` saved (tests check that a declined change saved nothing).
    public var saveCount: Int { lock.withLock { saves } }

    public func loadItems() throws -> StoredItems {
        lock.withLock { items }
    }

    public func modifyItems<T>(_ body: (inout StoredItems) throws -> T) throws -> T {
        try modifyItems(since: -1) { items, _ in try body(&items) }
    }

    public func modifyItems<T>(since revision: Int, _ body: (inout StoredItems, _ unchanged: Bool) throws -> T) throws -> T {
        try lock.withLock {
            var copy = items
            let result = try body(&copy, revision == saves)
            // As `VaultSession.modify`: a …ThisDeviceOnly item never reaches the shared file.
            if let item = copy.shared.first(where: { $0.accessible.isThisDeviceOnly }) { throw Self.deviceOnlyError(item) }
            items = copy
            saves += 1
            return result
        }
    }

    /// Counts a save only when an item was added, as `VaultSession` writes only then.
    public func addItem(to store: Store, _ body: (StoredItems) throws -> Item?) throws -> Bool {
        try lock.withLock {
            guard let item = try body(items) else { return false }
            if store == .shared, item.accessible.isThisDeviceOnly { throw Self.deviceOnlyError(item) }
            items[store].append(item)
            saves += 1
            return true
        }
    }

    private static func deviceOnlyError(_ item: Item) -> KeychainError {
        KeychainError.param("refused to save: \(LocalStore.describe(item)) is \(item.accessible) and must stay in the local store")
    }

    public func verifyPassword(_ password: Secret) -> Bool {
        lock.withLock { password == masterPassword }
    }

    /// Replaces the master password when `current` is it; the items do not change.
    public func changeMasterPassword(from current: Secret, to newPassword: Secret) throws {
        try lock.withLock {
            guard current == masterPassword else { throw KeychainError.wrongMasterPassword }
            masterPassword = newPassword
        }
    }

    /// `saveCount`: the items change only through `modifyItems`.
    public var revision: Int { saveCount }
}
