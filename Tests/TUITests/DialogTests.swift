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
