import Foundation
import Testing
import KeyshelfCrypto
@testable import KeyshelfVault

@Suite struct RoundTripTests {
    @Test func savedItemsReadBackInAFreshSession() throws {
        let vault = TemporaryVault()
        defer { vault.cleanUp() }
        let session = try vault.directory.create(password: testPassword, limits: .minimum)
        var tombstone = sampleItem(99)
        tombstone.password = nil
        tombstone.isDeleted = true
        let local = [sampleItem(1, accessible: .whenUnlockedThisDeviceOnly), sampleItem(2)]
        let shared = [sampleItem(3), sampleItem(7), tombstone]
        try session.modify { contents in
            contents.local = local
            contents[.shared] = shared
        }
        let reopened = try vault.directory.unlock(password: testPassword)
        let contents = try reopened.contents()
        #expect(contents.local == local)
        #expect(contents.shared == shared)
        #expect(contents.shared[2].isDeleted && contents.shared[2].password == nil)
    }
}
