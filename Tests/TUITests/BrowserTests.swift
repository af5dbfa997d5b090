import Foundation
import Testing
import KeyshelfVault
import KeyshelfClipboard
import KeyshelfCrypto
@testable import KeyshelfTUI

/// The browser driven by scripted keys on a recording screen.
@Suite struct BrowserTests {
    final class Clock: @unchecked Sendable {
        var now = Date(timeIntervalSince1970: 1_800_000_000)
    }

    func app(_ shelf: FakeShelf = FakeShelf(), rows: Int = 30, columns: Int = 100, keys: [Key?],
             clock: Clock = Clock(), configuration: TUIConfiguration = TUIConfiguration(),
             keepsFrames: Bool = false) -> (ShelfApp, RecordingScreen, ShelfApp.Exit) {
        let screen = RecordingScreen(rows: rows, columns: columns)
        screen.keepsFrames = keepsFrames
        screen.pendingKeys = keys
        let (clipboard, _) = recordingClipboard()
        let app = ShelfApp(screen: screen, shelf: shelf, configuration: configuration, clipboard: clipboard, clock: { clock.now })
        let exit = app.run()
        return (app, screen, exit)
    }

    func chars(_ s: String) -> [Key?] { s.map { Key.character($0) } }

    @Test func showsDomainsWithCountsBadgesAndPortsAndTheDetail() {
        let (_, screen, exit) = app(keys: [])
        #expect(exit == .quit)
        let text = screen.text
        #expect(text.contains("bücher.example"))
        #expect(text.contains("git.example.org:8443"))
        #expect(text.contains("日本語.example"))
        let bucher = screen.lines.first { $0.contains("bücher.example") && $0.contains("│") }!
        #expect(bucher.contains(" 2 LS"))
        #expect(text.contains("anna"))
        #expect(text.contains("bernd"))
        #expect(text.contains("Password  ••••"))
        #expect(text.contains("note for anna"))
        #expect(!text.contains("pw-anna"))
    }

    @Test func movingSelectsAnotherDomainsAccounts() {
        let (app, screen, _) = app(keys: [.character("j"), .down, .character("k")])
        #expect(app.selectedDomain?.title == "git.example.org:8443")
        #expect(screen.text.contains("ci-bot"))
        #expect(!screen.text.contains("bernd"))
    }

    @Test func searchFiltersDomainsAndAccountsAndEscapeClears() {
        let (app, screen, _) = app(keys: [.character("/")] + chars("太郎"))
        #expect(app.index.visible.count == 1)
        #expect(app.selectedDomain?.title == "日本語.example")
        #expect(!screen.text.contains("mail.example.com"))
        let (cleared, _, _) = self.app(keys: [.character("/")] + chars("mail") + [.escape])
        #expect(cleared.index.visible.count == 4)
        let (none, noneScreen, _) = self.app(keys: [.character("/")] + chars("zzz"))
        #expect(none.index.visible.isEmpty)
        #expect(noneScreen.text.contains("Nothing matches"))
    }

    @Test func deleteDeclinedWithEscapeOrNKeepsTheRecord() {
        for decline in [Key.escape, .character("n")] {
            let shelf = FakeShelf()
            let (_, screen, _) = app(shelf, keys: [.tab, .character("d"), .tab, decline])
            #expect(shelf.items.count == 5)
            #expect(screen.text.contains("Canceled"))
        }
    }

    @Test func enterOnAFreshDeleteDialogNeverDeletes() {
        let shelf = FakeShelf()
        _ = app(shelf, keys: [.tab, .character("d"), .enter])
        #expect(shelf.items.count == 5)
    }

    @Test func deleteAcceptedRemovesTheSelectedRecord() {
        let shelf = FakeShelf()
        let (_, screen, _) = app(shelf, keys: [.tab, .character("d"), .tab, .enter])
        #expect(shelf.items.count == 4)
        #expect(!shelf.items.contains { $0.account == "anna" })
        #expect(screen.text.contains("Deleted anna"))
    }

    @Test func deleteDialogShowsTheConsentTitleWithFocusOnCancel() throws {
        let shelf = FakeShelf()
        // Input ends while the dialog is open: the last frame shows it, and ending declines.
        let (_, screen, _) = app(shelf, keys: [.tab, .character("d")])
        #expect(screen.text.contains("Delete Saved Password?"))
        #expect(screen.text.contains("Delete anna for bücher.example?"))
        let row = try #require(screen.lines.firstIndex { $0.contains("[ Cancel ]") })
        let line = screen.lines[row]
        let column = line.distance(from: line.startIndex, to: line.range(of: "[ Cancel ]")!.lowerBound)
        #expect(screen.role(row: row, column: column) == .buttonFocused)
        #expect(shelf.items.count == 5)
    }

    @Test func generatorShowsAPasswordGAgainReplacesItAndUseFillsTheAddForm() {
        let shelf = FakeShelf()
        let keys: [Key?] = [.character("g"), .character("g"), .tab, .enter] + chars("new-user") + [.enter, .enter, .enter, .control("s")]
        let (app, screen, _) = app(shelf, keys: keys)
        #expect(shelf.generated == 2)
        #expect(app.selectedRecord?.account == "new-user")
        let added = shelf.items.first { $0.account == "new-user" }
        #expect(added != nil)
        #expect(added.map { shelf.passwords[$0.id] } == "abc-DEF-245-xyz")
        #expect(screen.text.contains("Saved new-user"))
    }

    @Test func addFormShowsInlineErrorsForEmptyFields() {
        let shelf = FakeShelf()
        let screen = RecordingScreen(rows: 30, columns: 100)
        let (clipboard, _) = recordingClipboard()
        let app = ShelfApp(screen: screen, shelf: shelf, clipboard: clipboard)
        screen.pendingKeys = [.backTab, .control("u"), .control("s"), nil]
        app.handle(.character("a"))
        // Input ended while the form was open: the form was canceled, nothing saved.
        #expect(shelf.items.count == 5)
        #expect(screen.text.contains("Enter the account"))
        #expect(screen.text.contains("Enter a server"))
        #expect(screen.text.contains("Enter a password"))
    }

    @Test func domainErrorsStayInTheFormAndNothingIsSaved() {
        let shelf = FakeShelf()
        let screen = RecordingScreen(rows: 30, columns: 100)
        let (clipboard, _) = recordingClipboard()
        let app = ShelfApp(screen: screen, shelf: shelf, clipboard: clipboard)
        screen.pendingKeys = [.backTab, .control("u")] + chars("bad host") + [.tab] + chars("bob") + [.tab, .character("x"), .control("s"), nil]
        app.handle(.character("a"))
        #expect(screen.text.contains("Invalid server \"bad host\""))
        #expect(shelf.items.count == 5)
    }

    @Test func hostileNamesAreShownInert() {
        let shelf = FakeShelf([("evil\u{1B}]0;pwned\u{07}.example", nil, "x\u{9B}2J", "p", .shared)])
        let (_, screen, _) = app(shelf, keys: [])
        #expect(screen.text.contains("evil␛]0;pwned␇.example"))
        #expect(screen.text.contains("x\u{FFFD}2J"))
        for line in screen.lines {
            #expect(!line.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) })
        }
    }

    @Test func wideTextIsTruncatedToThePaneWithoutSplittingCharacters() {
        let long = String(repeating: "長", count: 60) + ".example"
        let shelf = FakeShelf([(long, nil, "a", "p", .shared)])
        let (_, screen, _) = app(shelf, keys: [])
        let row = screen.lines.first { $0.hasPrefix("│ 長長") }!
        #expect(row.contains("…"))
        // The domain pane's right border is still in place after the wide text.
        let cells = screen.cells[screen.lines.firstIndex(of: row)!]
        #expect(cells[39].text == "│")
    }

    @Test func smallTerminalShowsAMessageInsteadOfTheLayout() {
        let (_, screen, _) = app(rows: 12, columns: 50, keys: [])
        #expect(screen.text.contains("Terminal too small"))
        #expect(!screen.text.contains("bücher"))
        let (_, fits, _) = app(rows: 16, columns: 60, keys: [])
        #expect(fits.text.contains("bücher.example"))
    }

    @Test func tinyTerminalsStillShowTheNeededSizeWhole() {
        let (_, narrow, _) = app(rows: 5, columns: 20, keys: [])
        #expect(narrow.lines.contains { $0.contains("20×5") })
        #expect(narrow.lines.contains { $0.contains("60×16") })
        #expect(narrow.text.contains("Terminal too small"))
        let (_, tiny, _) = app(rows: 3, columns: 12, keys: [])
        #expect(tiny.lines.contains { $0.contains("12×3") })
        #expect(tiny.lines.contains { $0.contains("60×16") })
        #expect(!tiny.text.contains("…"))
    }

    @Test func resizeRedrawsForTheNewSize() {
        let screen = RecordingScreen(rows: 30, columns: 100)
        let (clipboard, _) = recordingClipboard()
        let app = ShelfApp(screen: screen, shelf: FakeShelf(), clipboard: clipboard)
        app.draw()
        screen.resize(rows: 16, columns: 60)
        app.handle(.resize)
        app.draw()
        #expect(screen.lines[15].count <= 60)
        #expect(screen.text.contains("bücher.example"))
    }

    @Test func withNoReadableClipboardCopySendsOSC52AndSaysItWillNotClearIt() {
        let screen = RecordingScreen()
        let (clipboard, writes) = recordingClipboard()
        let clock = Clock()
        let app = ShelfApp(screen: screen, shelf: FakeShelf(), clipboard: clipboard, clock: { clock.now })
        app.handle(.tab)
        app.handle(.character("c"))
        #expect(writes().map { String(decoding: $0, as: UTF8.self) } == ["\u{1B}]52;c;\(Data("pw-anna".utf8).base64EncodedString())\u{07}"])
        #expect(app.status.hasPrefix("Sent the password of anna to the terminal's clipboard (OSC 52)"))
        #expect(!app.status.contains("Copied"))
        // Nothing can tell whether the user copied something else since: no blind overwrite, later or on lock.
        clock.now += 46
        clipboard.tick(now: clock.now)
        clipboard.clearNow()
        #expect(writes().count == 1)
    }

    @Test func insideTmuxWithoutTmuxOrADisplayNothingIsSentAndTheStatusSaysNotCopied() {
        let screen = RecordingScreen()
        final class Box { var writes: [[UInt8]] = [] }
        let box = Box()
        // tmux named by $TMUX but not on PATH, no display: no clipboard at all, and OSC 52 would go nowhere.
        let clipboard = Clipboard(clearAfter: 45, environment: ["TMUX": "/tmp/none,1,0", "PATH": "/nonexistent"],
                                  writeTerminal: { box.writes.append($0) })
        let app = ShelfApp(screen: screen, shelf: FakeShelf(), clipboard: clipboard)
        app.handle(.tab)
        app.handle(.character("c"))
        #expect(box.writes.isEmpty)
        #expect(app.status.hasPrefix("Not copied"))
        #expect(app.statusIsError)
    }

    @Test func revealAsksTheMasterPasswordForUserPresenceItems() {
        let shelf = FakeShelf()
        shelf.items[0].requiresUserPresence = true
        let wrong = app(shelf, keys: [.tab, .character("r")] + chars("nope") + [.enter, .escape])
        #expect(!wrong.1.text.contains("pw-anna"))
        let right = app(shelf, keys: [.tab, .character("r")] + chars("master") + [.enter])
        #expect(right.1.text.contains("pw-anna"))
        let plain = app(FakeShelf(), keys: [.tab, .character("r")])
        #expect(plain.1.text.contains("pw-anna"))
        #expect(plain.0.status == ShelfApp.revealedStatus)
    }

    /// Found by a new user: "Shown until you move or press r again." stayed after `r` hid the password.
    @Test func hidingThePasswordClearsItsStatusLine() {
        let (app, screen, _) = app(FakeShelf(), keys: [.tab, .character("r"), .character("r")])
        #expect(!screen.text.contains("pw-anna"))
        #expect(app.status.isEmpty)
    }

    @Test func aWrongMasterPasswordKeepsThePromptOpenForAnotherTry() throws {
        let shelf = FakeShelf()
        shelf.items[0].requiresUserPresence = true
        let (_, screen, _) = app(shelf, keys: [.tab, .character("r")] + chars("nope") + [.enter] + chars("master") + [.enter], keepsFrames: true)
        #expect(screen.text.contains("pw-anna"))
        let retry = try #require(screen.frames.first { $0.contains("Wrong master password (errSecAuthFailed -25293); try again") })
        #expect(retry.contains("Master Password"))
        let masks = retry.split(separator: "\n").filter { $0.contains("•") && !$0.contains("r reveal") }
        #expect(masks.isEmpty, "the field is cleared for the next try")
    }

    @Test func keysTypedAfterAWrongMasterPasswordNeverReachTheBrowser() {
        let shelf = FakeShelf()
        shelf.items[0].requiresUserPresence = true
        // Typed as if the prompt had closed: `d` would open the delete dialog, Tab then Enter would delete.
        let (_, screen, _) = app(shelf, keys: [.tab, .character("r")] + chars("nope") + [.enter, .character("d"), .tab, .enter, .escape],
                                 keepsFrames: true)
        #expect(!screen.frames.contains { $0.contains("Delete Saved Password?") })
        #expect(shelf.items.count == 5)
        #expect(!screen.text.contains("pw-anna"))
    }

    @Test func threeWrongMasterPasswordsCloseThePromptWithTheError() {
        let shelf = FakeShelf()
        shelf.items[0].requiresUserPresence = true
        let wrong = chars("nope") + [.enter]
        let (_, screen, _) = app(shelf, keys: [.tab, .character("c")] + wrong + wrong + wrong)
        #expect(!screen.text.contains("Master Password"))
        #expect(screen.text.contains("Not copied: wrong master password (errSecAuthFailed -25293)"))
    }

    @Test func theSelectionSurvivesALockAndUnlock() throws {
        let shelf = FakeShelf()
        for keys: [Key?] in [[.tab, .character("j")], [.character("j"), .character("j")]] {
            let (locked, _, exit) = app(shelf, keys: keys + [.character("X")])
            #expect(exit == .locked)
            let selection = try #require(locked.selection)
            // After unlock the TUI makes a new browser, which starts on the first account, and hands it the selection.
            let (clipboard, _) = recordingClipboard()
            let unlocked = ShelfApp(screen: RecordingScreen(), shelf: shelf, clipboard: clipboard)
            #expect(unlocked.selectedRecord?.account == "anna")
            unlocked.restore(selection)
            #expect(unlocked.selectedDomain?.title == locked.selectedDomain?.title)
            #expect(unlocked.selectedRecord?.account == locked.selectedRecord?.account)
            #expect(unlocked.selectedRecord?.account != "anna")
            #expect(unlocked.state.pane == locked.state.pane)
        }
    }

    @Test func xLocksAndIdleLocksAfterTheConfiguredTime() {
        let shelf = FakeShelf()
        let (_, _, exit) = app(shelf, keys: [.character("X")])
        #expect(exit == .locked)
        #expect(shelf.locked)

        let clock = Clock()
        var config = TUIConfiguration()
        config.autoLockSeconds = 300
        let idle = FakeShelf()
        let screen = RecordingScreen()
        screen.pendingKeys = [nil, nil]
        let (clipboard, _) = recordingClipboard()
        let app = ShelfApp(screen: screen, shelf: idle, configuration: config, clipboard: clipboard, clock: {
            clock.now += 200
            return clock.now
        })
        #expect(app.run() == .locked)
        #expect(idle.locked)
        #expect(screen.lines.allSatisfy { $0.isEmpty })
    }

    @Test func backspaceInTheAddFormSavesWhatWasTyped() {
        // Backspace arrives as DEL or, with Ctrl-H, as BS.
        for backspace in [Key(wideCharacter: 0x7F), Key(wideCharacter: 0x08)] {
            let shelf = FakeShelf()
            _ = app(shelf, keys: [.character("a")] + chars("abcd") + [backspace] + chars("X") + [.tab] + chars("pw1") + [.control("s")])
            let saved = shelf.items.first { !FakeShelf.sample.map(\.account).contains($0.account) }
            #expect(saved?.account == "abcX")
            #expect(saved?.server == "bücher.example")
        }
    }

    @Test func escapeAfterASearchKeepsTheSelectedDomainAndAccount() {
        let (typing, _, _) = app(keys: [.character("/")] + chars("太郎") + [.escape])
        #expect(typing.index.visible.count == 4)
        #expect(typing.selectedDomain?.title == "日本語.example")
        let (kept, _, _) = app(keys: [.character("/")] + chars("bücher") + [.enter, .tab, .character("j"), .escape])
        #expect(kept.index.visible.count == 4)
        #expect(kept.selectedRecord?.account == "bernd")
    }

    @Test func aLongStatusEndsInAnEllipsis() {
        let screen = RecordingScreen(rows: 16, columns: 60)
        let (clipboard, _) = recordingClipboard()
        let app = ShelfApp(screen: screen, shelf: FakeShelf(), clipboard: clipboard)
        app.setStatus("Canceled: deleting the password for \"anna@example.org\" on bücher.example was declined (errSecUserCanceled -128).")
        app.draw()
        let status = screen.lines[14]
        #expect(status.hasSuffix("…"))
        #expect(TerminalText.columns(status) == 60)
    }

    /// At 80 columns no form cuts a hint or its key line with `…`: the add,
    /// edit, import and login forms, each field focused in turn.
    @Test func formHintsAndKeyLinesFitEightyColumns() {
        let visitAll: [Key?] = Array(repeating: .tab, count: 6) + [.escape]
        for (keys, title) in [([Key.character("a")], "Add Credential"), ([.tab, .character("e")], "Edit anna"),
                              ([.character("i")], "Import Passwords")] {
            let screen = RecordingScreen(rows: 24, columns: 80)
            screen.keepsFrames = true
            screen.pendingKeys = keys + visitAll
            _ = ShelfApp(screen: screen, shelf: FakeShelf(), clipboard: recordingClipboard().0).run()
            let forms = screen.frames.filter { $0.contains(title) }
            #expect(!forms.isEmpty, "\(title)")
            for frame in forms {
                // The browser's own hint line below is cut on purpose (the rarest keys last).
                let lines = frame.split(separator: "\n", omittingEmptySubsequences: false).dropLast(2)
                #expect(!lines.contains { $0.contains("…") }, "\(title): \(frame)")
            }
        }
        let screen = RecordingScreen(rows: 24, columns: 80)
        screen.keepsFrames = true
        screen.pendingKeys = [.tab, .escape]
        let app = ShelfApp(screen: screen, shelf: FakeShelf(), clipboard: recordingClipboard().0)
        _ = app.askCredential(server: "bücher.example", account: nil, suggestion: Secret(utf8: "abc-DEF-345-xyz"), failedAttempts: 0)
        for frame in screen.frames where frame.contains("Log in to") {
            #expect(!frame.split(separator: "\n").dropLast(2).contains { $0.contains("…") }, "\(frame)")
        }
    }

    @Test func helpKeepsEachDescriptionBesideItsKey() {
        let screen = RecordingScreen(rows: 16, columns: 60)
        let (clipboard, _) = recordingClipboard()
        let app = ShelfApp(screen: screen, shelf: FakeShelf(), clipboard: clipboard)
        screen.pendingKeys = [nil]
        app.handle(.character("?"))
        #expect(screen.text.contains("e                   edit the selected account"))
        #expect(screen.text.contains("d                   delete (asks first)"))
    }

    @Test func helpListsTheKeys() {
        let screen = RecordingScreen()
        let (clipboard, _) = recordingClipboard()
        let app = ShelfApp(screen: screen, shelf: FakeShelf(), clipboard: clipboard)
        screen.pendingKeys = [nil]
        app.handle(.character("?"))
        for needle in ["switch pane", "search", "generate", "copy the password", "login flow", "lock now", "quit"] {
            #expect(screen.text.contains(needle))
        }
    }
}
