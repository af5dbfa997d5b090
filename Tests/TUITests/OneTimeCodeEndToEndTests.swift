import Foundation
import KeyshelfTestSupport
import Testing
import KeyshelfCredentials
import KeyshelfCrypto
import KeyshelfVault

/// One-time codes in the real TUI inside tmux, on the real clock (docs/tui.md,
/// "One-time codes"): the code and a countdown that moves, the `otp` badge,
/// `o` copying to tmux's paste buffer, and redraws that send only what changed.
@Suite struct OneTimeCodeEndToEndTests {
    static let uri = "otpauth://totp/Books:anna?secret=\(OneTimeCodeSecret.rfc)"

    /// The samples' TUI with a TOTP secret on anna (bücher.example, the first account), her detail on show.
    func started() throws -> TmuxSession {
        let tmux = try TmuxSession(samples: TUIEndToEndTests.samples)
        try tmux.setOneTimeSecret(Self.uri, server: "bücher.example", account: "anna")
        try tmux.start(environment: "DISPLAY= WAYLAND_DISPLAY=")
        try tmux.waitFor("Domains")
        try tmux.send("Tab")
        try tmux.waitFor { Self.shownCode($0) != nil }
        return tmux
    }

    /// The code and the seconds left on the detail's Code line, e.g. ("755224", 17).
    static func shownCode(_ screen: String) -> (code: String, remaining: Int)? {
        guard let line = screen.split(separator: "\n").first(where: { $0.contains("Code ") && $0.contains(" s · o copy") }),
              let match = line.firstMatch(of: /Code\s+(\d{3}) (\d{3})\s+[█░]+ (\d+) s/), let remaining = Int(match.3) else { return nil }
        return ("\(match.1)\(match.2)", remaining)
    }

    /// Every code valid from `start` to a few seconds from now.
    static func codes(since start: Date) throws -> Set<String> {
        let auth = try OTPAuth.parse(uri)
        let first = Int64(start.timeIntervalSince1970) - 1
        let last = Int64(Date().timeIntervalSince1970) + 6
        return Set((first...last).map { auth.code(at: $0).code })
    }

    @Test func showsTheCodeWithAMovingCountdownAndABadge() throws {
        let start = Date()
        let tmux = try started()
        let screen = try tmux.screen()
        let shown = try #require(Self.shownCode(screen))
        #expect(try Self.codes(since: start).contains(shown.code), "the screen showed \(shown.code)")
        let rows = screen.split(separator: "\n")
        #expect(rows.first { $0.contains("anna") }?.contains("otp shared") == true, "anna has the badge")
        #expect(rows.first { $0.contains("bernd") }?.contains("otp") == false)
        let later = try tmux.waitFor { Self.shownCode($0).map { $0.remaining != shown.remaining } ?? false }
        #expect(Self.shownCode(later) != nil, "the countdown moved without a key")
    }

    @Test func oCopiesTheCodeToTmuxsPasteBuffer() throws {
        let start = Date()
        let tmux = try started()
        try tmux.send("o")
        try tmux.waitFor("Copied the one-time code of anna to tmux's paste buffer")
        let copied = try tmux.tmux(["show-buffer"])
        #expect(try Self.codes(since: start).contains(copied), "the buffer held \(copied)")
    }

    /// A tick redraws through curses, which sends only the cells that changed:
    /// a second's update is a few dozen bytes, never a cleared screen.
    @Test func theCountdownRedrawsOnlyWhatChanged() throws {
        let tmux = try started()
        let log = tmux.folder.appendingPathComponent("pane-output")
        try tmux.tmux(["pipe-pane", "-o", "cat >> '\(log.path)'"])
        var seen = Set<Int>()
        try tmux.waitFor { screen in
            if let remaining = Self.shownCode(screen)?.remaining { seen.insert(remaining) }
            return seen.count >= 3
        }
        try tmux.tmux(["pipe-pane"])
        let output = (try? Data(contentsOf: log)) ?? Data()
        #expect(!output.isEmpty, "the ticks reached the terminal")
        #expect(output.count < 1_500, "\(output.count) bytes for two ticks; a whole 100×30 frame is several kilobytes")
        let text = String(decoding: output, as: UTF8.self)
        #expect(!text.contains("\u{1B}[2J") && !text.contains("\u{1B}[H\u{1B}[J"), "the screen was cleared")
    }
}

extension TmuxSession {
    /// Saves `uri` as the one-time-code secret of `account` on `server` in the session's vault.
    func setOneTimeSecret(_ uri: String, server: String, account: String) throws {
        let session = try VaultDirectory(url: folder.appendingPathComponent("vault")).unlock(password: Secret(utf8: "e2e-master"))
        defer { session.lock() }
        let keyshelf = try Keyshelf(vault: session, consent: ApproveAll())
        try keyshelf.setOneTimeSecret(try OTPAuth.parse(uri), server: try ServerName(parsing: server), account: account)
    }
}
