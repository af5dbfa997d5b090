import KeyshelfCredentials
import KeyshelfCrypto
import KeyshelfVault

/// The domain facade's `CredentialVault` over an unlocked `VaultSession`:
/// reads are `contents()`, writes the session's locked `modify`.
///
/// Kept in the CLI because the domain layer ships only `MemoryVault`; it
/// can move next to `CredentialVault` once the domain adopts the session.
final class SessionVault: CredentialVault {
    let session: VaultSession

    init(_ session: VaultSession) {
        self.session = session
    }

    func loadItems() throws -> StoredItems {
        let contents = try session.contents()
        return StoredItems(local: contents.local, shared: contents.shared)
    }

    func modifyItems<T>(_ body: (inout StoredItems) throws -> T) throws -> T {
        try session.modify { contents in
            var items = StoredItems(local: contents.local, shared: contents.shared)
            let result = try body(&items)
            contents.local = items.local
            contents.shared = items.shared
            return result
        }
    }

    func verifyPassword(_ password: Secret) -> Bool {
        session.verifyPassword(password)
    }
}
