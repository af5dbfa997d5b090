import KeyshelfCredentials
import KeyshelfCrypto
import KeyshelfVault

/// The facade's vault, remembering the master password the TUI's prompt has
/// just verified until the facade checks it, so one reveal runs Argon2id once.
///
/// The master-password prompt verifies each try itself (to keep the prompt open
/// after a wrong one); the facade then checks the returned password again
/// (`Keyshelf`'s user-presence check). That second check of the same password
/// is answered from memory, once; every other check goes to the vault.
final class PromptCheckedVault: CredentialVault {
    private let base: any CredentialVault
    private var verified: Secret?

    init(_ base: any CredentialVault) { self.base = base }

    func loadItems() throws -> StoredItems { try base.loadItems() }

    func modifyItems<T>(_ body: (inout StoredItems) throws -> T) throws -> T { try base.modifyItems(body) }

    func modifyItems<T>(since revision: Int, _ body: (inout StoredItems, Bool) throws -> T) throws -> T {
        try base.modifyItems(since: revision, body)
    }

    func addItem(to store: Store, _ body: (StoredItems) throws -> Item?) throws -> Bool { try base.addItem(to: store, body) }

    var revision: Int { base.revision }

    func verifyPassword(_ password: Secret) -> Bool {
        if let verified {
            self.verified = nil
            if verified == password { return true }
        }
        return base.verifyPassword(password)
    }

    /// Forgets a remembered password: it is not the master password afterwards.
    func changeMasterPassword(from current: Secret, to newPassword: Secret) throws {
        verified = nil
        try base.changeMasterPassword(from: current, to: newPassword)
    }

    /// The prompt's check: asks the vault and remembers a right password for the facade's check.
    func verifyForPrompt(_ password: Secret) -> Bool {
        verified = nil
        guard base.verifyPassword(password) else { return false }
        verified = password
        return true
    }

    /// Drops a remembered password (after the action, whether or not the facade checked it).
    func forget() { verified = nil }
}
