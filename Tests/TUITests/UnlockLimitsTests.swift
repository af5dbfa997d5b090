import Foundation
import Testing
import KeyshelfCrypto
import KeyshelfVault
@testable import KeyshelfTUI

/// The unlock screen asks before paying for a `shared.vault`'s Argon2id
/// limits above `local.vault`'s (issue 11 item 3): a second Enter approves.
@Suite struct UnlockLimitsTests {
    static let password = "correct horse battery staple"

    /// A vault at minimum limits whose `shared.vault` was made with two passes (same password).
    static func vault() throws -> (directory: VaultDirectory, root: URL) {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("keyshelf-unlock-limits-\(UUID().uuidString)")
        let directory = VaultDirectory(url: root.appendingPathComponent("vault"))
        let other = VaultDirectory(url: root.appendingPathComponent("other"))
        try directory.create(password: Secret(utf8: password), limits: .minimum).lock()
        let higher = PasswordHashLimits(opslimit: 2, memlimitBytes: PasswordHashLimits.minimum.memlimitBytes)
        try other.create(password: Secret(utf8: password), limits: higher).lock()
        let shared = directory.url.appendingPathComponent("shared.vault")
        try FileManager.default.removeItem(at: shared)
        try FileManager.default.copyItem(at: other.url.appendingPathComponent("shared.vault"), to: shared)
        return (directory, root)
    }

    @Test func aSecondEnterApprovesTheHigherLimits() throws {
        let (directory, root) = try Self.vault()
        defer { try? FileManager.default.removeItem(at: root) }
        let screen = RecordingScreen()
        screen.keepsFrames = true
        screen.pendingKeys = Self.password.map { Key.character($0) } + [.enter, .enter]
        let session = try #require(UnlockScreen(screen: screen, directory: directory, creationLimits: .minimum).run())
        session.lock()
        #expect(screen.frames.contains { $0.contains("tampered") && $0.contains("Enter again") }, "\(screen.frames.last ?? "")")
    }

    @Test func escapeAfterTheQuestionUnlocksNothing() throws {
        let (directory, root) = try Self.vault()
        defer { try? FileManager.default.removeItem(at: root) }
        let screen = RecordingScreen()
        screen.pendingKeys = Self.password.map { Key.character($0) } + [.enter, .escape]
        #expect(UnlockScreen(screen: screen, directory: directory, creationLimits: .minimum).run() == nil)
    }
}
