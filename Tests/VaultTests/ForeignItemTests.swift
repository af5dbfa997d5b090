import Foundation
import Testing
import KeyshelfCrypto
@testable import KeyshelfVault

/// A `…ThisDeviceOnly` item written into `shared.vault` by something else
/// must not make every later save fail (issue 11, item 23): the next save
/// moves it to the local store and says so.
@Suite struct ForeignItemTests {
    /// Writes `shared.vault` holding `items` as another writer would, past the session's check.
    static func plantShared(_ items: [Item], in vault: TemporaryVault) throws {
        let read = try #require(try FileSystem.read(vault.file(.shared)))
        var file = try VaultSession.openFile(read, store: .shared, password: testPassword, reusing: nil, path: vault.file(.shared))
        var items = items
        try VaultSession.save(items, plaintext: RecordCodec.encode(&items), store: .shared, file: &file, directory: vault.path)
    }

    @Test func aForeignDeviceOnlyItemInTheSharedFileIsMovedToTheLocalStoreWithAWarning() throws {
        let vault = TemporaryVault()
        defer { vault.cleanUp() }
        _ = try vault.directory.create(password: testPassword, limits: .minimum)
        let foreign = sampleItem(2, accessible: .afterFirstUnlockThisDeviceOnly)
        try Self.plantShared([sampleItem(1), foreign], in: vault)

        let session = try vault.directory.unlock(password: testPassword)
        let warnings = Locked<[VaultWarning]>([])
        session.warningHandler = { warning in warnings.withLock { $0.append(warning) } }
        try session.modify { $0.shared[0].comment = "edited" }
        try session.modify { $0.shared.append(sampleItem(3)) }

        let said = warnings.withLock { $0 }
        #expect(said.count == 1)
        #expect(said.first?.file == vault.file(.shared))
        #expect(said.first?.reason.contains("moved to the local store: 2.example.com (account user2@example.com, afterFirstUnlockThisDeviceOnly)") == true)
        let contents = try vault.directory.unlock(password: testPassword).contents()
        #expect(contents.shared.map(\.id) == [sampleItem(1).id, sampleItem(3).id])
        #expect(contents.local == [foreign])
        // The refusal still holds for an item a change puts there.
        #expect(throws: VaultError.self) { try session.modify { $0.shared.append(sampleItem(4, accessible: .whenUnlockedThisDeviceOnly)) } }
    }

    @Test func aForeignItemTheLocalStoreHasAlreadyIsDropped() throws {
        let vault = TemporaryVault()
        defer { vault.cleanUp() }
        let session = try vault.directory.create(password: testPassword, limits: .minimum)
        let foreign = sampleItem(2, accessible: .whenUnlockedThisDeviceOnly)
        try session.modify { $0.local = [foreign] }
        try Self.plantShared([foreign], in: vault)
        let warnings = Locked<[VaultWarning]>([])
        session.warningHandler = { warning in warnings.withLock { $0.append(warning) } }
        try session.modify { $0.shared.append(sampleItem(1)) }
        #expect(warnings.withLock { $0 }.first?.reason.contains("dropped, the local store has them already") == true)
        let contents = try vault.directory.unlock(password: testPassword).contents()
        #expect(contents.local == [foreign])
        #expect(contents.shared == [sampleItem(1)])
    }
}
