import Foundation
import KeyshelfCrypto
import KeyshelfVault

/// The items of both stores as the facade reads and writes them.
public struct StoredItems: Sendable {
    /// Items of `local.vault` (the local store), tombstones included.
    public var local: [Item]
    /// Items of `shared.vault` (shared credentials), tombstones included.
    public var shared: [Item]

    public init(local: [Item] = [], shared: [Item] = []) {
        self.local = local
        self.shared = shared
    }

    /// The items of one store.
    public subscript(store: Store) -> [Item] {
        get { store == .local ? local : shared }
        set { if store == .local { local = newValue } else { shared = newValue } }
    }
}

/// Where the facade keeps items: an unlocked vault (`VaultSession`) or, in
/// tests and the demo, memory (`MemoryVault`).
public protocol CredentialVault: AnyObject {
    /// The current items of both stores.
    /// - Throws: the vault's error (`VaultError`) when the files cannot be read.
    func loadItems() throws -> StoredItems
    /// Locked read-modify-write: `body` edits the current items and they are
    /// saved (atomically) when it returns; nothing is saved when it throws.
    func modifyItems<T>(_ body: (inout StoredItems) throws -> T) throws -> T
    /// Whether `password` is the master password (for `userPresence` items).
    func verifyPassword(_ password: Secret) -> Bool
}

/// An in-memory `CredentialVault` for tests and the demo.
public final class MemoryVault: CredentialVault, @unchecked Sendable {
    private let lock = NSLock()
    private var items: StoredItems
    private let masterPassword: Secret
    /// How many times `modifyItems` saved (tests check that a declined change saved nothing).
    public private(set) var saveCount = 0

    /// A vault holding `items`, unlocked by `masterPassword`.
    public init(items: StoredItems = StoredItems(), masterPassword: Secret = Secret(utf8: "correct horse")) {
        self.items = items
        self.masterPassword = masterPassword
    }

    public func loadItems() throws -> StoredItems {
        lock.withLock { items }
    }

    public func modifyItems<T>(_ body: (inout StoredItems) throws -> T) throws -> T {
        try lock.withLock {
            var copy = items
            let result = try body(&copy)
            items = copy
            saveCount += 1
            return result
        }
    }

    public func verifyPassword(_ password: Secret) -> Bool {
        password == masterPassword
    }
}
