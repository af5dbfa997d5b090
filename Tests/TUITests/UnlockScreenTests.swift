import Foundation
import Testing
import KeyshelfCrypto
import KeyshelfVault
@testable import KeyshelfTUI

@Suite struct UnlockScreenTests {
    func folder() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("keyshelf-unlock-\(UUID().uuidString)")
    }

    func keys(_ text: String) -> [Key?] { text.map { Key.character($0) } }

    @Test func firstRunCreatesTheVaultWithAConfirmedPasswordAndShowsTheCost() throws {
        let dir = folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let directory = VaultDirectory(url: dir)
        let screen = RecordingScreen()
        screen.keepsFrames = true
        screen.pendingKeys = keys("one") + [.enter] + keys("two") + [.enter] + keys("one") + [.enter] + keys("one") + [.enter]
        let session = try #require(UnlockScreen(screen: screen, directory: directory, creationLimits: .minimum).run())
        session.lock()
        #expect(screen.frames[0].contains("Create a keyshelf vault"))
        #expect(screen.frames[0].contains("Key derivation: Argon2id"))
        #expect(screen.frames.contains { $0.contains("The two passwords differ") })
        #expect(directory.exists)
        #expect(!screen.text.contains("one"))
    }

    @Test func wrongPasswordIsReportedAndTheRightOneUnlocks() throws {
        let dir = folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let directory = VaultDirectory(url: dir)
        try directory.create(password: Secret(utf8: "right"), limits: .minimum).lock()
        let screen = RecordingScreen()
        screen.keepsFrames = true
        screen.pendingKeys = keys("wrong") + [.enter] + keys("right") + [.enter]
        let session = try #require(UnlockScreen(screen: screen, directory: directory).run())
        session.lock()
        #expect(screen.frames.contains { $0.contains("Wrong master password (errSecAuthFailed -25293)") })
        #expect(screen.frames.contains { $0.contains("Master password   •••••") })

        let quitting = RecordingScreen()
        quitting.pendingKeys = [.escape]
        #expect(UnlockScreen(screen: quitting, directory: directory).run() == nil)
    }
}
