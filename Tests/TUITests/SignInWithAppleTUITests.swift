import Foundation
import Testing
import KeyshelfCredentials
import KeyshelfCrypto
import KeyshelfVault
@testable import KeyshelfTUI

/// A Sign in with Apple account in the browser over the real facade: the
/// badge, the detail text, and no password to reveal, copy or generate.
@Suite struct SignInWithAppleTUITests {
    let relay = "x7k2@privaterelay.appleid.com"

    func vault() throws -> MemoryVault {
        let vault = MemoryVault()
        try Keyshelf(vault: vault).addAppleAccount(server: ServerName(parsing: "shop.example"), account: relay, to: .shared,
                                                   forwardingAddress: "me@example.net")
        return vault
    }

    func run(_ keys: [Key?], columns: Int = 100) throws -> RecordingScreen {
        let screen = RecordingScreen(rows: 30, columns: columns)
        screen.keepsFrames = true
        screen.pendingKeys = keys
        let (clipboard, _) = recordingClipboard()
        _ = ShelfApp(screen: screen, shelf: try KeyshelfShelf(vault: try vault()), clipboard: clipboard).run()
        return screen
    }

    @Test func theBadgeAndTheDetailSayHowItSignsIn() throws {
        #expect(try run([], columns: 140).text.contains("Sign in with Apple — manage in Apple Account → Sign-In & Security"))
        let text = try run([]).text
        #expect(text.contains("Apple·relay"))
        #expect(text.contains("Sign in with Apple — manage in Apple Account →"))
        #expect(text.contains("Sign-In & Security"))
        #expect(text.contains("hidden: a Hide My Email relay address"))
        #expect(text.contains("to me@example.net"))
        #expect(!text.contains("••••"))
    }

    @Test func revealSaysThereIsNoPassword() throws {
        let screen = try run([.tab, .character("r")])
        #expect(screen.text.contains("signs in with Apple"))
    }

    @Test func theEditFormOffersNoPasswordNorGenerator() throws {
        let screen = try run([.tab, .character("e")])
        #expect(screen.text.contains("Edit \(relay)"))
        #expect(!screen.text.contains("Ctrl-G"))
    }
}
