import Foundation
import KeyshelfTestSupport
import Testing
import KeyshelfCrypto
import KeyshelfVault

/// The real binary in tmux: what a user sees and what ends up in the vault.
@Suite(.serialized) struct TUIEndToEndTests {
    static let samples: [(server: String, account: String, store: Store, comment: String)] = [
        ("bücher.example", "anna", .shared, "bookshop"),
        ("bücher.example", "bernd", .local, ""),
        ("git.example.org:8443", "ci-bot", .shared, ""),
        ("mail.example.com", "me", .shared, ""),
        ("shop.example", "mallory\u{1B}]0;pwned\u{07}", .shared, "x\u{1B}]2;evil\u{1B}\\y"),
    ]

    func started(columns: Int = 100, rows: Int = 30) throws -> TmuxSession {
        let tmux = try TmuxSession(samples: Self.samples)
        try tmux.start(columns: columns, rows: rows)
        try tmux.waitFor("Domains")
        return tmux
    }

    @Test func browseShowsDomainsPortsAndAccounts() throws {
        let tmux = try started()
        let screen = try tmux.waitFor("bücher.example")
        #expect(screen.contains("git.example.org:8443"))
        #expect(screen.contains("anna"))
        try tmux.send("j")
        try tmux.waitFor("ci-bot")
        try tmux.send("q")
        try tmux.waitFor("EXITED 0")
    }

    @Test func aMissingSharedVaultIsShownInTheStatusLine() throws {
        let tmux = try TmuxSession(samples: Self.samples)
        let vault = tmux.folder.appendingPathComponent("vault")
        try FileManager.default.moveItem(at: vault.appendingPathComponent("shared.vault"), to: tmux.folder.appendingPathComponent("moved.vault"))
        try tmux.start(columns: 140)
        let screen = try tmux.waitFor("shared.vault is missing; the shared credentials read as empty")
        #expect(screen.contains("bücher.example"), "the local item is still listed")
        #expect(!screen.contains("mail.example.com"))
    }

    @Test func searchNarrowsAndEscapeClears() throws {
        let tmux = try started()
        try tmux.send("/")
        try tmux.type("mail")
        let narrowed = try tmux.waitFor { $0.contains("Accounts of mail.example.com") }
        #expect(!narrowed.contains("git.example.org"))
        try tmux.send("Escape")
        try tmux.waitFor { $0.contains("git.example.org") && $0.contains("4/4 domains") }
    }

    @Test func deleteDeclinedKeepsTheRecordAndAcceptedDeletesIt() throws {
        let tmux = try started()
        try tmux.send("Tab", "d")
        try tmux.waitFor("Delete Saved Password?")
        try tmux.send("Tab", "Escape")
        try tmux.waitFor("Canceled")
        #expect(try tmux.savedAccounts().contains("anna"))

        try tmux.send("d")
        try tmux.waitFor("Delete Saved Password?")
        try tmux.send("Enter")
        try tmux.waitFor { !$0.contains("Delete Saved Password?") }
        #expect(try tmux.savedAccounts().contains("anna"), "Enter on a fresh dialog must not delete")

        try tmux.send("d")
        try tmux.waitFor("Delete Saved Password?")
        try tmux.send("Tab", "Enter")
        try tmux.waitFor("Deleted anna")
        #expect(try !tmux.savedAccounts().contains("anna"))
        #expect(try tmux.savedAccounts().contains("bernd"))
    }

    @Test func generatorShowsTheFormatAndGAgainChangesIt() throws {
        let tmux = try started()
        try tmux.send("g")
        let pattern = /[a-zA-Z3-9]{3}-[a-zA-Z3-9]{3}-[a-zA-Z3-9]{3}-[a-zA-Z3-9]{3}/
        // The title can be captured before the password is drawn: wait for both.
        let first = try tmux.waitFor { $0.contains("Generated Password") && $0.firstMatch(of: pattern) != nil }
        let one = try #require(first.firstMatch(of: pattern)).output
        try tmux.send("g")
        let second = try tmux.waitFor { ($0.firstMatch(of: pattern)?.output).map(String.init) != String(one) }
        #expect(second.contains("Generated Password"))
        try tmux.send("Escape")
        try tmux.waitFor { !$0.contains("Generated Password") }
    }

    @Test func importingAChromeExportShowsTheNewDomain() throws {
        let tmux = try started()
        let csv = tmux.folder.appendingPathComponent("chrome.csv")
        try "name,url,username,password,note\nNeu,https://neu.example/login,nina,pw-nina,\nBooks,https://bücher.example/,anna,pw-anna,\n"
            .write(to: csv, atomically: true, encoding: .utf8)
        try tmux.send("i")
        try tmux.waitFor("Import Passwords")
        try tmux.type(csv.path)
        try tmux.send("Enter", "Enter", "Enter")
        let report = try tmux.waitFor("Import 1 Password?")
        #expect(report.contains("skipped row 3 (line 3): \"anna\" on bücher.example: already saved"))
        try tmux.send("Tab", "Enter")
        let screen = try tmux.waitFor("chrome.csv: imported 1, updated 0, skipped 1, failed 0.")
        #expect(screen.contains("neu.example"))
        #expect(screen.contains("nina"))
        #expect(try tmux.savedAccounts() == ["anna", "bernd", "ci-bot", "mallory\u{1B}]0;pwned\u{07}", "me", "nina"])
    }

    @Test func hostileNamesDoNotReachTheTerminal() throws {
        let tmux = try started()
        let title = try tmux.paneTitle
        try tmux.send("/")
        // Not "shop": the search matches notes too (as `keyshelf search` does), and anna's say "bookshop".
        try tmux.type("shop.example")
        try tmux.send("Enter", "Tab")
        // The account list and the detail are drawn in one frame, but a capture
        // can land mid-draw: wait for both.
        try tmux.waitFor { $0.contains("mallory␛]0;pwned␇") && $0.contains("x␛]2;evil␛\\y") }
        #expect(try tmux.paneTitle == title)
        #expect(try !tmux.paneTitle.contains("pwned"))
    }

    /// `alice` + U+2800 and a note with NBSP are marked on the real terminal, not drawn as blanks.
    @Test func blankLookalikesAreMarkedOnTheTerminal() throws {
        let tmux = try TmuxSession(samples: [("blank.example", "alice", .shared, ""),
                                             ("blank.example", "alice\u{2800}", .shared, "two\u{A0}words")])
        try tmux.start()
        try tmux.send("Tab", "j")
        let screen = try tmux.waitFor { $0.contains("alice\u{FFFD}") && $0.contains("two\u{FFFD}words") }
        #expect(!screen.unicodeScalars.contains("\u{2800}"))
        #expect(!screen.unicodeScalars.contains("\u{A0}"))
        try tmux.send("q")
        try tmux.waitFor("EXITED 0")
    }

    /// Dates that decode from the vault as NaN and -1e300 are shown as the placeholder; the TUI keeps running.
    @Test func impossibleStoredDatesShowThePlaceholder() throws {
        let tmux = try TmuxSession(samples: [("dates.example", "dora", .shared, "")])
        let session = try VaultDirectory(url: tmux.folder.appendingPathComponent("vault")).unlock(password: Secret(utf8: "e2e-master"))
        try session.modify { contents in
            contents.shared[0].creationDate = Date(timeIntervalSince1970: .nan)
            contents.shared[0].modificationDate = Date(timeIntervalSince1970: -1e300)
        }
        session.lock()
        try tmux.start()
        try tmux.waitFor { $0.contains("Created   (invalid date)") && $0.contains("Modified  (invalid date)") }
        try tmux.send("q")
        try tmux.waitFor("EXITED 0")
    }

    @Test(arguments: ["nonexistent-term", "dumb", ""])
    func aTerminalTypeCursesCannotDriveIsRefusedBeforeUnlocking(term: String) throws {
        let tmux = try TmuxSession(samples: [])
        try tmux.start(columns: 200, environment: "TERM=\(term)")
        let screen = try tmux.waitFor("EXITED ")
        #expect(screen.contains("keyshelf: the terminal type \"\(term)\" is unknown or cannot move the cursor; set TERM to e.g. xterm-256color"))
        #expect(screen.contains("EXITED 2"))
        #expect(!screen.contains("Error opening terminal"))
    }

    @Test func ctrlZSuspendsToTheShellAndFgRedraws() throws {
        let tmux = try TmuxSession(samples: Self.samples)
        try tmux.startInShell()
        try tmux.waitFor("bücher.example")
        try tmux.send("C-z")
        let shell = try tmux.waitFor("Stopped")
        #expect(!shell.contains("Domains"))
        try tmux.type("fg")
        try tmux.send("Enter")
        try tmux.waitFor("bücher.example")
        try tmux.send("j")
        try tmux.waitFor("ci-bot")
        try tmux.send("q")
        try tmux.waitFor { !$0.contains("Domains") }
        try tmux.type("echo EXITED $?")
        try tmux.send("Enter")
        try tmux.waitFor("EXITED 0")
    }

    @Test func resizeRedrawsAndSmallTerminalsGetAMessage() throws {
        let tmux = try started()
        try tmux.tmux(["resize-window", "-x", "50", "-y", "12"])
        try tmux.waitFor("Terminal too small")
        try tmux.tmux(["resize-window", "-x", "60", "-y", "16"])
        let screen = try tmux.waitFor("bücher.example")
        #expect(screen.split(separator: "\n").allSatisfy { $0.count <= 60 })
        try tmux.tmux(["resize-window", "-x", "120", "-y", "40"])
        try tmux.waitFor { $0.split(separator: "\n", omittingEmptySubsequences: false).count >= 40 && $0.contains("Detail") }
        try tmux.send("q")
        try tmux.waitFor("EXITED 0")
    }

    @Test func sigtermRestoresTheTerminal() throws {
        let tmux = try started()
        let shell = try tmux.tmux(["display", "-p", "#{pane_pid}"]).trimmingCharacters(in: .whitespacesAndNewlines)
        let children = try String(contentsOfFile: "/proc/\(shell)/task/\(shell)/children", encoding: .utf8)
        let pid = try #require(children.split(separator: " ").first.flatMap { Int32($0) })
        kill(pid, SIGTERM)
        let screen = try tmux.waitFor("EXITED 143")
        // Back on the normal screen: the browser is gone and the alternate screen was left.
        #expect(!screen.contains("Domains"))
        #expect(try tmux.tmux(["display", "-p", "#{alternate_on}"]).trimmingCharacters(in: .whitespacesAndNewlines) == "0")
    }

    @Test func noColorAndThemesStartAndAnUnknownThemeIsRefused() throws {
        let tmux = try TmuxSession(samples: Self.samples)
        try tmux.start(arguments: "--theme nope")
        try tmux.waitFor("EXITED 2")
        #expect(try tmux.screen().contains("nope.theme"))

        let light = try TmuxSession(samples: Self.samples)
        try light.start(arguments: "--theme light")
        try light.waitFor("bücher.example")

        let plain = try TmuxSession(samples: Self.samples)
        try plain.start(environment: "NO_COLOR=1")
        try plain.waitFor("bücher.example")
    }

    /// tmux's default `set-clipboard external` ignores a program's OSC 52: the copy goes to tmux's
    /// paste buffer through `tmux load-buffer`, the status says so, and locking deletes that buffer
    /// but not one the user made afterwards.
    @Test func copyGoesToTmuxsPasteBufferAndLockDeletesOnlyThatOne() throws {
        let tmux = try TmuxSession(samples: Self.samples)
        try tmux.start(environment: "DISPLAY= WAYLAND_DISPLAY=")
        try tmux.waitFor("Domains")
        #expect(try tmux.tmux(["show", "-sv", "set-clipboard"]).hasPrefix("external"))
        try tmux.send("Tab", "c")
        try tmux.waitFor("Copied the password of anna to tmux's paste buffer")
        #expect(try tmux.tmux(["show-buffer"]) == "pw-anna")
        try tmux.tmux(["set-buffer", "-b", "users", "mine"])
        try tmux.send("X")
        try tmux.waitFor("Unlock keyshelf")
        let names = try tmux.tmux(["list-buffers", "-F", "#{buffer_name}"]).split(separator: "\n").map(String.init)
        #expect(names == ["users"], "the password's buffer is gone, the user's stays")
    }

    /// The copy's status ("…; cleared in 2 s unless replaced") does not outlive
    /// the copy: once the delay has passed it says the value was cleared.
    @Test func theCopyStatusSaysWhenTheClipboardWasCleared() throws {
        let tmux = try TmuxSession(samples: Self.samples)
        try tmux.start(environment: "DISPLAY= WAYLAND_DISPLAY= KEYSHELF_CLIPBOARD_CLEAR=2")
        try tmux.waitFor("Domains")
        try tmux.send("Tab", "c")
        try tmux.waitFor("Copied the password of anna to tmux's paste buffer; cleared in 2 s")
        let cleared = try tmux.waitFor("Cleared the password of anna from tmux's paste buffer")
        #expect(!cleared.contains("cleared in 2 s"))
        #expect(try tmux.tmux(["list-buffers", "-F", "#{buffer_name}"]).isEmpty)
    }

    @Test func idleAutoLockReturnsToTheUnlockScreen() throws {
        let tmux = try TmuxSession(samples: Self.samples)
        let config = tmux.folder.appendingPathComponent("keyshelf")
        try FileManager.default.createDirectory(at: config, withIntermediateDirectories: true)
        try "auto-lock = 1\n".write(to: config.appendingPathComponent("config"), atomically: true, encoding: .utf8)
        try tmux.start()
        try tmux.waitFor("bücher.example")
        let locked = try tmux.waitFor("Unlock keyshelf")
        #expect(!locked.contains("bücher.example"))
        try tmux.type("e2e-master")
        try tmux.send("Enter")
        try tmux.waitFor("bücher.example")
    }

    @Test func lockAndUnlockKeepTheSelectedDomain() throws {
        let tmux = try started()
        try tmux.send("j")
        try tmux.waitFor("Accounts of git.example.org:8443")
        try tmux.send("X")
        try tmux.waitFor("Unlock keyshelf")
        try tmux.type("e2e-master")
        try tmux.send("Enter")
        try tmux.waitFor("Accounts of git.example.org:8443")
    }

    /// tmux sends `ESC [ 1 ~` / `ESC [ 4 ~` for Home / End, which the
    /// xterm-256color entry does not name: they must move the cursor, never
    /// read as Esc (which would close the form).
    @Test func homeAndEndSequencesOutsideTerminfoMoveTheCursor() throws {
        let tmux = try started()
        try tmux.send("a")
        try tmux.waitFor("Add Credential")
        try tmux.type("ello")
        try tmux.send("Home")
        try tmux.type("h")
        try tmux.send("End")
        try tmux.type("!")
        let screen = try tmux.waitFor("hello!")
        #expect(screen.contains("Add Credential"))
    }
}
