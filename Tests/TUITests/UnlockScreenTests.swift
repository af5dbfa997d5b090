import Foundation
import Testing
import KeyshelfCredentials
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
        screen.pendingKeys = keys("correct horse") + [.enter] + keys("battery staple") + [.enter]
            + keys("correct horse") + [.enter]
        let session = try #require(UnlockScreen(screen: screen, directory: directory, creationLimits: .minimum).run())
        session.lock()
        #expect(screen.frames[0].contains("Create a keyshelf vault"))
        #expect(screen.frames[0].contains("Key derivation: Argon2id"))
        #expect(screen.frames.contains { $0.contains("The two passwords differ") })
        #expect(!screen.frames.contains { $0.contains("Short master passwords") })
        #expect(directory.exists)
        #expect(!screen.text.contains("horse"))
    }

    @Test func tinyTerminalsShowTheNeededSizeOnTheUnlockScreen() {
        for (rows, columns) in [(5, 20), (3, 12)] {
            let screen = RecordingScreen(rows: rows, columns: columns)
            screen.pendingKeys = [.escape]
            #expect(UnlockScreen(screen: screen, directory: VaultDirectory(url: folder()), creationLimits: .minimum).run() == nil)
            #expect(screen.lines.contains { $0.contains("\(columns)×\(rows)") })
            #expect(screen.lines.contains { $0.contains("60×16") })
        }
    }

    @Test func aShortNewMasterPasswordIsWarnedAboutAndNeedsASecondEnter() throws {
        let dir = folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let directory = VaultDirectory(url: dir)
        let warned = RecordingScreen()
        warned.keepsFrames = true
        warned.pendingKeys = keys("abc") + [.enter] + keys("abc") + [.enter]
        #expect(UnlockScreen(screen: warned, directory: directory, creationLimits: .minimum).run() == nil)
        #expect(warned.text.contains("Short master passwords can be guessed; continue?"))
        #expect(!directory.exists)

        // Changing the password asks again; a second Enter creates the vault.
        let confirmed = RecordingScreen()
        confirmed.pendingKeys = keys("abc") + [.enter] + keys("abc") + [.enter] + [.backspace] + keys("d") + [.enter, .enter]
            + [.control("u")] + keys("abd") + [.enter]
        #expect(UnlockScreen(screen: confirmed, directory: directory, creationLimits: .minimum).run() == nil)
        #expect(!directory.exists)
        confirmed.pendingKeys = keys("abc") + [.enter] + keys("abc") + [.enter, .enter]
        let session = try #require(UnlockScreen(screen: confirmed, directory: directory, creationLimits: .minimum).run())
        session.lock()
        #expect(directory.exists)
    }

    /// The short-password warning fits the box whole at 80 columns and at the
    /// smallest size (60×16): it wraps instead of ending in `…`.
    @Test func theShortPasswordWarningIsShownWholeOnNarrowTerminals() throws {
        for (rows, columns) in [(24, 80), (16, 60)] {
            let dir = folder()
            defer { try? FileManager.default.removeItem(at: dir) }
            let screen = RecordingScreen(rows: rows, columns: columns)
            screen.keepsFrames = true
            screen.pendingKeys = keys("abc") + [.enter] + keys("abc") + [.enter]
            #expect(UnlockScreen(screen: screen, directory: VaultDirectory(url: dir), creationLimits: .minimum).run() == nil)
            let frame = try #require(screen.frames.last { $0.contains("Short master passwords") })
            let text = frame.split(separator: "\n").map { $0.trimmingCharacters(in: CharacterSet(charactersIn: "│ ")) }.joined(separator: " ")
            #expect(text.contains("\(MasterPasswordPolicy.shortWarning) (fewer than 12 characters) Enter again creates the vault anyway; "
                + "or type a longer one."), "\(columns)×\(rows): \(frame)")
            let warning = frame.split(separator: "\n").drop { !$0.contains("Short master passwords") }
            #expect(!warning.contains { $0.contains("…") }, "\(columns)×\(rows): \(frame)")
        }
    }

    @Test func aLongVaultPathWrapsAndACutEndsInAnEllipsis() throws {
        let dir = folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let vault = dir.appendingPathComponent("vault-5EF04219F3")
        try VaultDirectory(url: vault).create(password: Secret(utf8: "right"), limits: .minimum).lock()
        let screen = RecordingScreen(rows: 16, columns: 60)
        screen.pendingKeys = []
        _ = UnlockScreen(screen: screen, directory: VaultDirectory(url: vault)).run()
        #expect(screen.text.contains("5EF04219F3"))

        let deep = dir.appendingPathComponent(String(repeating: "nested-folder/", count: 12) + "vault")
        try VaultDirectory(url: deep).create(password: Secret(utf8: "right"), limits: .minimum).lock()
        let cut = RecordingScreen(rows: 16, columns: 60)
        _ = UnlockScreen(screen: cut, directory: VaultDirectory(url: deep)).run()
        let first = try #require(cut.lines.firstIndex { $0.contains("Vault: /tmp/") })
        #expect(cut.lines[first + 1].contains("nested-folder/"))
        #expect(cut.lines[first + 1].hasSuffix("… │"))
        #expect(cut.lines[first + 2].trimmingCharacters(in: .whitespaces) == "│" + String(repeating: " ", count: 54) + "│")
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
