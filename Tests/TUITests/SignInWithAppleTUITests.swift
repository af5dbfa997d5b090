import Foundation
import KeyshelfTestSupport
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

/// The same in the real binary inside tmux: an account added with
/// `add --sign-in-with-apple` shows its badge and detail, and `c` copies nothing.
@Suite(.serialized) struct SignInWithAppleTmuxTests {
    @Test func theBinaryShowsTheAppleAccount() throws {
        let tmux = try TmuxSession(samples: [("shop.example", "bob", .shared, "")])
        #expect(try TombstoneEndToEndTests.run(tmux, ["add", "shop.example", "x7k2@privaterelay.appleid.com", "--sign-in-with-apple"]) == 0)
        try tmux.start(columns: 140, rows: 30)
        try tmux.waitFor("Accounts of shop.example")
        // The accounts are sorted: bob, then the relay address.
        try tmux.send("Tab", "j")
        let screen = try tmux.waitFor("Sign in with Apple — manage in Apple Account → Sign-In & Security")
        #expect(screen.contains("Apple·relay"))
        try tmux.send("c")
        try tmux.waitFor("signs in with Apple: there is no password")
        try tmux.send("q")
        try tmux.waitFor("EXITED 0")
    }
}
