import Foundation
import KeyshelfCrypto
import KeyshelfVault

/// Where the facade keeps items: an unlocked vault (`VaultSession`) or, in
/// tests and the demo, memory (`MemoryVault`). The requirements are
/// `VaultSession`'s own methods.
public protocol CredentialVault: AnyObject {
    /// The current items of both stores, tombstones included.
    /// - Throws: the vault's error (`VaultError`) when the files cannot be read.
    func contents() throws -> VaultContents
    /// Locked read-modify-write: `body` edits the current items and they are
    /// saved (atomically) when it returns; nothing is saved when it throws.
    func modify<T>(_ body: (inout VaultContents) throws -> T) throws -> T
    /// Whether `password` is the master password (for `userPresence` items).
    func verifyPassword(_ password: Secret) -> Bool
}

extension VaultSession: CredentialVault {}

/// An in-memory `CredentialVault` for tests and the demo; like
/// `VaultSession`, it refuses to save a `…ThisDeviceOnly` item in `shared`.
public final class MemoryVault: CredentialVault, @unchecked Sendable {
    private let lock = NSLock()
    private var items: VaultContents
    private let masterPassword: Secret
    private var saves = 0

    /// A vault holding `items`, unlocked by `masterPassword`.
    public init(items: VaultContents = VaultContents(), masterPassword: Secret = Secret(utf8: "correct horse")) {
        self.items = items
        self.masterPassword = masterPassword
    }

    /// How many times `modify` saved (tests check that a declined change saved nothing).
    public var saveCount: Int { lock.withLock { saves } }

    public func contents() throws -> VaultContents {
        lock.withLock { items }
    }

    public func modify<T>(_ body: (inout VaultContents) throws -> T) throws -> T {
        try lock.withLock {
            var copy = items
            let result = try body(&copy)
            // As `VaultSession.modify`: a …ThisDeviceOnly item never reaches the shared file.
            if let item = copy.shared.first(where: { $0.accessible.isThisDeviceOnly }) {
                throw KeychainError.param("refused to save: \(LocalStore.describe(item)) is \(item.accessible) and must stay in the local store")
            }
            items = copy
            saves += 1
            return result
        }
    }

    public func verifyPassword(_ password: Secret) -> Bool {
        password == masterPassword
    }
}
