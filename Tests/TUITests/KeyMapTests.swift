import Foundation
import Testing
@testable import KeyshelfTUI

/// The key tables are the one place a key is bound: no key twice, the hint
/// bar and `?` built from them, and docs/tui.md naming every binding.
@Suite struct KeyMapTests {
    @Test func noKeyIsBoundTwice() {
        for table in [KeyMap.browser.map(\.keys), KeyMap.search.map(\.keys)] {
            let keys = table.flatMap { $0 }
            #expect(Set(keys.map(\.name)).count == keys.count)
        }
    }

    @Test func everyBrowserActionHasABindingAndEveryHintIsOnTheBar() {
        for action in BrowserAction.allCases {
            #expect(KeyMap.browser.filter { $0.action == action }.count == 1, "\(action)")
        }
        let hinted = KeyMap.browser.filter { $0.hint != nil }.map(\.action)
        #expect(Set(hinted) == Set(KeyMap.browserHintOrder))
        #expect(hinted.count == KeyMap.browserHintOrder.count)
    }

    @Test func theBarsAreTheOnesShownBefore() {
        #expect(KeyMap.browserHints == "? help · q quit · / search · a add · e edit · d delete · g generate · c copy · u user · o code · r reveal · L login · i import · X lock · Tab pane")
        #expect(KeyMap.searchHints == "type to filter · Enter keep · Esc clear")
    }

    @Test func lookupFindsEachBoundKey() {
        for binding in KeyMap.browser {
            for key in binding.keys { #expect(KeyMap.browserAction(for: key) == binding.action) }
        }
        #expect(KeyMap.browserAction(for: .character("Z")) == nil)
        #expect(KeyMap.searchAction(for: .character("j")) == nil)
    }

    /// `?` lists every binding, Ctrl-Z (which no table binds), the keys of
    /// forms and what the marks in the lists (`!`, `otp`, the badges) mean.
    @Test func theHelpDialogListsEveryHelpRow() {
        let screen = RecordingScreen(rows: 60, columns: 100)
        screen.keepsFrames = true
        screen.pendingKeys = [.escape]
        let app = ShelfApp(screen: screen, shelf: FakeShelf(), clipboard: recordingClipboard().0)
        app.showHelp()
        let frame = screen.frames.first ?? ""
        for row in KeyMap.helpRows + KeyMap.screenHelpRows + Form.helpRows + ShelfApp.markHelpRows {
            #expect(frame.contains(row.keys), "\(row.keys)")
            #expect(frame.contains(row.help), "\(row.keys)")
        }
        for key in ["Ctrl-Z", "Ctrl-B Ctrl-F", "Ctrl-S", "Ctrl-G", "!  "] { #expect(frame.contains(key), "\(key)") }
        #expect(frame.contains("In forms") && frame.contains("In the lists"))
    }

    /// Every binding of both tables has a row in docs/tui.md's key table
    /// ("## Keys") whose key column names all its keys.
    @Test func docsListEveryBindingWithItsKeys() throws {
        let docs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("docs/tui.md")
        let text = try String(contentsOf: docs, encoding: .utf8)
        let section = text.components(separatedBy: "## Keys").dropFirst().first?.components(separatedBy: "\n## ").first ?? ""
        let rows = section.split(separator: "\n").filter { $0.hasPrefix("| ") && !$0.hasPrefix("| key") && !$0.hasPrefix("| ---") }
        let keyColumns = rows.map { Self.keyNames(inColumn: String($0.split(separator: "|").first ?? "")) }
        let bindings = KeyMap.browser.map { ("\($0.action)", $0.keys) } + KeyMap.search.map { ("search \($0.action)", $0.keys) }
        for (action, keys) in bindings {
            let names = Set(keys.map(\.name))
            #expect(keyColumns.contains { names.isSubset(of: $0) }, "docs/tui.md has no key row naming \(names.sorted()) (\(action))")
        }
    }

    /// The key names of a table cell: each `quoted` name, and the bare words between them.
    static func keyNames(inColumn column: String) -> Set<String> {
        var names: Set<String> = []
        for (i, part) in column.components(separatedBy: "`").enumerated() {
            if i % 2 == 1 {
                names.insert(part)
            } else {
                let words = part.split { $0 == " " || $0 == "," }.map(String.init)
                names.formUnion(words.filter { $0 != "/" })
            }
        }
        return names
    }
}
