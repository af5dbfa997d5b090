import Foundation
import Testing
import KeyshelfCredentials
import KeyshelfCrypto
import KeyshelfVault
@testable import KeyshelfTUI

/// One-time codes in the browser over the real facade (`KeyshelfShelf` on a
/// `MemoryVault`), with a clock the test moves: the live TOTP code and its
/// countdown, `o` (and its wait for the next code), HOTP only on request,
/// the `otp` badge (docs/tui.md, "One-time codes").
@Suite struct OneTimeCodeBrowserTests {
    final class Clock: @unchecked Sendable {
        var now = Date(timeIntervalSince1970: 1_800_000_010)
        var seconds: Int64 { Int64(now.timeIntervalSince1970) }
    }

    static let totp = "otpauth://totp/Example:alice?secret=\(OneTimeCodeSecret.rfc)"
    static let hotp = "otpauth://hotp/Bank:carol?secret=\(OneTimeCodeSecret.rfc)"

    func item(_ host: String, _ account: String, otpauth: String = "") -> Item {
        var item = Item(account: account, server: host, password: Secret(utf8: "pw-\(account)"))
        item.otpauth = otpauth
        return item
    }

    /// bank.example carol (HOTP), example.com alice (TOTP) and bob (no secret); the browser on example.com's accounts.
    func browser(at clock: Clock, items: [Item]? = nil) throws -> (ShelfApp, RecordingScreen, MemoryVault, () -> [[UInt8]]) {
        let vault = MemoryVault(items: VaultContents(local: items ?? [
            item("bank.example", "carol", otpauth: Self.hotp), item("example.com", "alice", otpauth: Self.totp), item("example.com", "bob"),
        ]))
        let screen = RecordingScreen()
        let (clipboard, writes) = recordingClipboard()
        let app = ShelfApp(screen: screen, shelf: try KeyshelfShelf(vault: vault), clipboard: clipboard, clock: { clock.now })
        app.handle(.down)
        app.handle(.tab)
        app.draw()
        return (app, screen, vault, writes)
    }

    /// Each key as `run` handles it: the key, the tick, a frame.
    func press(_ app: ShelfApp, _ keys: Key...) {
        for key in keys {
            app.handle(key)
            _ = app.oneTimeCodeTick()
            app.draw()
        }
    }

    func code(_ uri: String, at time: Int64) throws -> String { try OTPAuth.parse(uri).code(at: time).code }

    func osc52(_ text: String) -> String { "\u{1B}]52;c;\(Data(text.utf8).base64EncodedString())\u{07}" }

    func line(_ screen: RecordingScreen, containing text: String) -> String {
        screen.lines.first { $0.contains(text) } ?? ""
    }

    @Test func theLiveCodeAndItsCountdownFollowTheClock() throws {
        let clock = Clock()
        let (app, screen, _, _) = try browser(at: clock)
        let first = try code(Self.totp, at: clock.seconds)
        #expect(line(screen, containing: "Code").contains("\(ShelfApp.grouped(first))  ██████████░░░░░ 20 s · o copy"))
        #expect(line(screen, containing: "alice").hasSuffix("otp local  │"))
        #expect(!line(screen, containing: "bob").contains("otp"))

        clock.now += 1
        #expect(app.oneTimeCodeTick(), "a countdown on show asks for a redraw")
        app.draw()
        #expect(line(screen, containing: "Code").contains("\(ShelfApp.grouped(first))  ██████████░░░░░ 19 s"))

        clock.now += 19
        _ = app.oneTimeCodeTick()
        app.draw()
        let next = try code(Self.totp, at: clock.seconds)
        #expect(next != first)
        #expect(line(screen, containing: "Code").contains("\(ShelfApp.grouped(next))  ███████████████ 30 s"))

        app.handle(.down)
        app.draw()
        #expect(!screen.text.contains("Code "), "bob has no secret: no line")
        #expect(!app.oneTimeCodeTick(), "nothing to count down: no redraw")
    }

    @Test func oCopiesAtOnceOrWaitsForTheNextCodeWhenFewerThanFiveSecondsAreLeft() throws {
        let clock = Clock()
        let (app, _, _, writes) = try browser(at: clock)
        app.handle(.character("o"))
        #expect(writes().map { String(decoding: $0, as: UTF8.self) } == [osc52(try code(Self.totp, at: clock.seconds))])
        #expect(app.status.hasPrefix("Sent the one-time code of alice"))

        clock.now += 17   // 3 s left
        app.handle(.character("o"))
        #expect(writes().count == 1, "not copied yet")
        #expect(app.status == "3 s left for this code: the next one is copied when it starts.")
        clock.now += 2
        _ = app.oneTimeCodeTick()
        #expect(writes().count == 1)
        clock.now += 1
        #expect(app.oneTimeCodeTick())
        #expect(writes().map { String(decoding: $0, as: UTF8.self) }.last == osc52(try code(Self.totp, at: clock.seconds)))
        #expect(app.status.hasPrefix("Sent the one-time code of alice"))
    }

    @Test func hotpCodesAreMadeOnlyOnRequestNeverByTheClock() throws {
        let clock = Clock()
        let (app, screen, vault, writes) = try browser(at: clock)
        app.handle(.left)
        app.handle(.up)
        app.handle(.tab)
        app.draw()
        #expect(line(screen, containing: "Code").contains("HOTP · o makes, shows and copies the next code"))
        for _ in 0..<3 {
            clock.now += 1
            _ = app.oneTimeCodeTick()
            app.draw()
        }
        #expect(try OTPAuth.parse(vault.loadItems().local[0].otpauth).counter == 0, "drawing never advances the counter")

        app.handle(.character("o"))
        app.draw()
        #expect(line(screen, containing: "Code").contains("755 224   HOTP, counter advanced"))
        #expect(writes().map { String(decoding: $0, as: UTF8.self) } == [osc52("755224")])
        clock.now += 60
        _ = app.oneTimeCodeTick()
        app.draw()
        #expect(line(screen, containing: "Code").contains("755 224"), "a HOTP code does not expire")
        #expect(try OTPAuth.parse(vault.loadItems().local[0].otpauth).counter == 1)

        press(app, .character("h"), .down, .up, .tab)
        #expect(line(screen, containing: "Code").contains("HOTP · o makes"), "moving away hides the code")
    }

    @Test func aUserPresenceCodeIsMadeOnlyAfterTheMasterPasswordAndShownUntilItExpires() throws {
        let clock = Clock()
        var dora = item("example.com", "dora", otpauth: Self.totp)
        dora.accessControl = .userPresence
        let (app, screen, _, writes) = try browser(at: clock, items: [item("bank.example", "carol"), dora])
        #expect(line(screen, containing: "Code").contains("o asks the master password, then copies"))
        screen.pendingKeys = "correct horse".map { Key.character($0) } + [.enter]
        press(app, .character("o"))
        let code = try code(Self.totp, at: clock.seconds)
        #expect(writes().map { String(decoding: $0, as: UTF8.self) } == [osc52(code)])
        #expect(line(screen, containing: "Code").contains("\(ShelfApp.grouped(code))  ██████████░░░░░ 20 s"))
        clock.now += 20
        _ = app.oneTimeCodeTick()
        app.draw()
        #expect(line(screen, containing: "Code").contains("o asks the master password"), "the next code needs the password again")
    }

    @Test func oOnAnAccountWithoutSecretSaysHowToAddOne() throws {
        let clock = Clock()
        let (app, _, _, writes) = try browser(at: clock)
        app.handle(.down)
        app.handle(.character("o"))
        #expect(app.status == "bob has no one-time-code secret (keyshelf otp set adds one).")
        #expect(writes().isEmpty)
    }

    @Test func theHelpAndTheHintBarNameTheKey() throws {
        let (app, screen, _, _) = try browser(at: Clock())
        #expect(screen.lines.last?.contains("o code") == true)
        screen.keepsFrames = true
        screen.pendingKeys = [.escape]
        app.showHelp()
        #expect(screen.frames.first?.contains("copy the one-time code") == true)
    }
}

/// RFC 4226's key, "12345678901234567890", in base32.
enum OneTimeCodeSecret {
    static let rfc = "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ"
}
