import Testing
@testable import KeyshelfTUI

@Suite struct DialogTests {
    func deleteDialog() -> Dialog {
        Dialog(title: "Delete Saved Password?", message: "Delete alice for example.com?", buttons: ["Cancel", "Delete"], destructive: [1])
    }

    @Test func focusStartsOnTheSafeButtonSoEnterNeverDeletes() {
        var dialog = deleteDialog()
        #expect(dialog.focus == 0)
        #expect(dialog.handle(.enter) == .activated(0))
    }

    @Test func tabAndArrowsMoveFocusAndWrap() {
        var dialog = deleteDialog()
        #expect(dialog.handle(.tab) == nil)
        #expect(dialog.focus == 1)
        #expect(dialog.handle(.tab) == nil)
        #expect(dialog.focus == 0)
        _ = dialog.handle(.right)
        #expect(dialog.focus == 1)
        _ = dialog.handle(.left)
        #expect(dialog.focus == 0)
        _ = dialog.handle(.backTab)
        #expect(dialog.handle(.enter) == .activated(1))
    }

    @Test func escapeAndNDecline() {
        var dialog = deleteDialog()
        _ = dialog.handle(.tab)
        #expect(dialog.handle(.escape) == .declined)
        var other = deleteDialog()
        _ = other.handle(.tab)
        #expect(other.handle(.character("n")) == .declined)
    }

    @Test func drawsTitleMessageAndFocusedSafeButton() {
        let screen = RecordingScreen(rows: 20, columns: 70)
        deleteDialog().draw(on: screen)
        #expect(screen.text.contains("Delete Saved Password?"))
        #expect(screen.text.contains("Delete alice for example.com?"))
        let row = screen.lines.firstIndex { $0.contains("[ Cancel ]") }!
        let column = screen.lines[row].distance(from: screen.lines[row].startIndex, to: screen.lines[row].range(of: "[ Cancel ]")!.lowerBound)
        #expect(screen.role(row: row, column: column) == .buttonFocused)
        let deleteColumn = screen.lines[row].distance(from: screen.lines[row].startIndex, to: screen.lines[row].range(of: "[ Delete ]")!.lowerBound)
        #expect(screen.role(row: row, column: deleteColumn) == .buttonDanger)
    }

    @Test func wrappedLinesOfATwoColumnMessageStayUnderTheDescription() {
        var dialog = Dialog(title: "Keys", message: "e     edit the selected account\nq     quit", buttons: ["Close"])
        dialog.width = 24
        dialog.hangingIndent = 6
        let screen = RecordingScreen(rows: 16, columns: 60)
        dialog.draw(on: screen)
        let body = screen.lines.map { $0.trimmingCharacters(in: .whitespaces) }
        #expect(body.contains("│ e     edit the       │"))
        #expect(body.contains("│       selected       │"))
        #expect(body.contains("│       account        │"))
        #expect(body.contains("│ q     quit           │"))
    }

    @Test func aLongMessageScrollsWithinTheScreenAndShowsWhereItIs() {
        let size = Size(rows: 16, columns: 60)
        var dialog = Dialog(title: "Report", message: (1...30).map { "line \($0)" }.joined(separator: "\n"), buttons: ["Close"])
        let screen = RecordingScreen(rows: size.rows, columns: size.columns)
        dialog.draw(on: screen)
        #expect(screen.text.contains("line 10"))
        #expect(!screen.text.contains("line 11"))
        #expect(screen.text.contains("↑↓ 1–10 of 30"))
        #expect(dialog.handle(.character("j"), size: size) == nil)
        #expect(dialog.scroll == 1)
        _ = dialog.handle(.end, size: size)
        #expect(dialog.scroll == 20)
        _ = dialog.handle(.down, size: size)
        #expect(dialog.scroll == 20)
        screen.clear()
        dialog.draw(on: screen)
        #expect(screen.text.contains("line 30"))
        #expect(screen.text.contains("↑↓ 21–30 of 30"))
        _ = dialog.handle(.pageUp, size: size)
        #expect(dialog.scroll == 11)
        _ = dialog.handle(.home, size: size)
        #expect(dialog.scroll == 0)
        // Without a size (or with a message that fits) the scrolling keys do nothing.
        _ = dialog.handle(.down)
        #expect(dialog.scroll == 0)
        var short = deleteDialog()
        _ = short.handle(.down, size: size)
        #expect(short.scroll == 0)
    }
}

@Suite struct FieldTests {
    @Test func textFieldEditsAtTheCursor() {
        var field = TextField("ac")
        _ = field.handle(.left)
        _ = field.handle(.character("b"))
        #expect(field.text == "abc")
        _ = field.handle(.backspace)
        #expect(field.text == "ac")
        _ = field.handle(.control("u"))
        #expect(field.text.isEmpty)
        _ = field.handle(.character("\u{1B}"))
        _ = field.handle(.character("\u{9B}"))
        #expect(field.text.isEmpty)
        #expect(Key(wideCharacter: 0) == .other(0))
        #expect(Key(wideCharacter: 0x1B) == .escape)
        #expect(Key(wideCharacter: 0x03) == .control("c"))
        #expect(Key(wideCharacter: 0xE9) == .character("é"))
    }

    @Test func secretFieldMasksAndRemovesWholeCharacters() {
        let field = SecretField()
        for c in "pä日" { _ = field.handle(.character(c)) }
        #expect(field.count == 3)
        _ = field.handle(.backspace)
        #expect(field.secret().unsafeString() == "pä")
        let screen = RecordingScreen(rows: 1, columns: 10)
        field.draw(on: screen, row: 0, column: 0, width: 10)
        #expect(screen.lines[0] == "••")
        field.clear()
        #expect(field.isEmpty)
    }

    @Test func aChoiceTooWideForItsFieldShowsTheSelectedOne() {
        let form = Form(title: "Import Passwords", fields: [
            Form.Field(label: "Store", input: .choice(["shared", "local"], selected: 0)),
            Form.Field(label: "Format", input: .choice(["auto", "chrome", "firefox", "bitwarden", "keepassxc", "safari", "1password", "lastpass"], selected: 0)),
        ])
        let screen = RecordingScreen(rows: 20, columns: 70)
        form.draw(on: screen)
        #expect(screen.text.contains("(•) shared  ( ) local"))
        #expect(screen.text.contains("◂ auto ▸  1 of 8"))
        _ = form.handle(.tab)
        _ = form.handle(.left)
        #expect(form.choice(at: 1) == 7)
        screen.clear()
        form.draw(on: screen)
        #expect(screen.text.contains("◂ lastpass ▸  8 of 8"))
    }

    @Test func listScrollsToKeepTheSelectionVisible() {
        var list = ListState(count: 100)
        for _ in 0..<12 { _ = list.handle(.down, pageHeight: 10) }
        list.scrollToSelection(height: 10)
        #expect(list.selected == 12)
        #expect(list.top == 3)
        _ = list.handle(.end, pageHeight: 10)
        list.scrollToSelection(height: 10)
        #expect(list.top == 90)
        _ = list.handle(.character("k"), pageHeight: 10)
        #expect(list.selected == 98)
        list.setCount(5)
        #expect(list.selected == 4)
    }
}
