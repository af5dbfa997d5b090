import Foundation
import KeyshelfCrypto
import KeyshelfVault
import Testing
@testable import KeyshelfCredentials

/// `ShelfOperation.changeMasterPassword` (`keyshelf passwd`, issue 12 item 2)
/// on a facade over memory and over a real vault: the current password is
/// checked first, a wrong one is `errSecAuthFailed` and changes nothing.
@Suite struct ChangeMasterPasswordTests {
    static let change = ShelfOperation.changeMasterPassword(current: secret("correct horse"), new: secret("battery staple"))
    static let wrong = ShelfOperation.changeMasterPassword(current: secret("wrong horse"), new: secret("battery staple"))

    @Test func aMemoryVaultTakesTheNewPasswordOnlyAfterTheCurrentOne() throws {
        let vault = MemoryVault(items: StoredItems(local: [internetItem("example.com", "alice", "pw")]))
        let shelf = try Keyshelf(vault: vault)
        #expect(throws: KeychainError(.authFailed, "")) { _ = try Self.wrong.perform(on: shelf) }
        #expect(vault.verifyPassword(secret("correct horse")))
        #expect(try Self.change.perform(on: shelf) == .masterPasswordChanged)
        #expect(vault.verifyPassword(secret("battery staple")) && !vault.verifyPassword(secret("correct horse")))
        #expect(vault.saveCount == 0)
        #expect(try shelf.get(server: ServerPattern(parsing: "example.com"), account: "alice").password == secret("pw"))
    }

    @Test func aVaultIsResealedUnderTheNewPasswordAndAWrongOneLeavesTheFiles() throws {
        let url = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("keyshelf-passwd-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: url) }
        let directory = VaultDirectory(url: url)
        let session = try directory.create(password: secret("correct horse"), limits: .minimum)
        defer { session.lock() }
        let shelf = try Keyshelf(vault: session)
        try shelf.add(server: server("example.com"), account: "alice", password: secret("pw"), to: .local)
        let files = { try ["local.vault", "shared.vault"].map { try Data(contentsOf: url.appendingPathComponent($0)) } }
        let before = try files()

        do {
            _ = try Self.wrong.perform(on: shelf)
            Issue.record("a wrong current password was taken")
        } catch let error as KeychainError {
            // The text a wrong password gets when the vault is opened.
            #expect(error.status == .authFailed && error.reason == "\(url.path)/local.vault: wrong master password")
        }
        #expect(try files() == before)

        #expect(try Self.change.perform(on: shelf) == .masterPasswordChanged)
        #expect(throws: VaultError(.wrongPassword, file: "", reason: "")) { try directory.unlock(password: secret("correct horse")).lock() }
        let reopened = try directory.unlock(password: secret("battery staple"))
        defer { reopened.lock() }
        #expect(try Keyshelf(vault: reopened).get(server: ServerPattern(parsing: "example.com"), account: "alice").password == secret("pw"))
        #expect(session.verifyPassword(secret("battery staple")))
    }
}
