import Testing
@testable import KeyshelfTUI

/// Editing keys of visible text fields (account, server, notes, search).
@Suite struct TextFieldTests {
    func field(_ text: String, _ keys: [Key]) -> TextField {
        var field = TextField(text)
        for key in keys { _ = field.handle(key) }
        return field
    }

    func typed(_ text: String) -> [Key] { text.map { Key.character($0) } }

    @Test func backspaceKeepsTheCursorAfterWhatIsLeft() {
        let edited = field("", typed("abcd") + [.backspace] + typed("X"))
        #expect(edited.text == "abcX")
        #expect(edited.cursor == 4)
    }

    @Test func ctrlHIsBackspace() {
        #expect(Key(wideCharacter: 0x08) == .backspace)
        #expect(field("abcd", [Key(wideCharacter: 0x08)] + typed("X")).text == "abcX")
    }

    @Test func backspacingAPrefilledFieldEmptiesIt() {
        let server = "[2001:db8::1]:8443"
        #expect(field(server, Array(repeating: .backspace, count: 25)).text == "")
        #expect(field(server, Array(repeating: .backspace, count: server.count - 1)).text == "[")
    }

    @Test func backspaceAndDeleteInTheMiddle() {
        let back = field("abcd", [.left, .backspace] + typed("X"))
        #expect(back.text == "abXd")
        #expect(back.cursor == 3)
        let delete = field("abcd", [.left, .left, .delete] + typed("Y"))
        #expect(delete.text == "abYd")
        #expect(field("abcd", [.delete]).text == "abcd")
        #expect(field("abcd", [.home, .backspace]).text == "abcd")
    }

    @Test func leftRightHomeEndMoveWithinTheText() {
        #expect(field("abcd", [.home] + typed("X")).text == "Xabcd")
        #expect(field("abcd", [.home, .end] + typed("X")).text == "abcdX")
        #expect(field("abcd", [.control("a"), .right] + typed("X")).text == "aXbcd")
        #expect(field("abcd", [.control("a"), .control("e"), .right] + typed("X")).text == "abcdX")
        #expect(field("ab", [.left, .left, .left] + typed("X")).text == "Xab")
    }

    @Test func ctrlWDeletesTheWordBeforeTheCursorAndCtrlUClears() {
        #expect(field("git example org", [.control("w")]).text == "git example ")
        #expect(field("git example org", [.control("w"), .control("w")]).text == "git ")
        #expect(field("git example org", [.left, .left, .left, .left, .control("w")] + typed("X")).text == "git X org")
        let cleared = field("abc", [.control("u")] + typed("Z"))
        #expect(cleared.text == "Z")
        #expect(cleared.cursor == 1)
    }

    @Test func backspaceRemovesOneWholeGrapheme() {
        #expect(field("日本語", [.backspace]).text == "日本")
        #expect(field("Jose\u{301}", [.backspace]).text == "Jos")
        #expect(field("a👍🏽", [.backspace]).text == "a")
        #expect(field("🇩🇪🇫🇷", [.left, .backspace]).text == "🇫🇷")
    }

    @Test func aCombiningMarkTypedAfterALetterJoinsIt() {
        let accented = field("", typed("Jose") + [.character("\u{301}")] + typed("x"))
        #expect(accented.text == "Jose\u{301}x")
        #expect(accented.cursor == 5)
        #expect(field("", typed("Jose") + [.character("\u{301}"), .backspace]).text == "Jos")
    }

    @Test func drawCutsWithAnEllipsisAndKeepsTheCursorInside() {
        let screen = RecordingScreen(rows: 1, columns: 20)
        let long = field("abcdefghijklmnopqrstuvwxyz", [])
        let end = long.draw(on: screen, row: 0, column: 0, width: 10)
        #expect(screen.lines[0] == "…stuvwxyz")
        #expect(end == 9)
        let start = field("abcdefghijklmnopqrstuvwxyz", [.home]).draw(on: screen, row: 0, column: 0, width: 10)
        #expect(screen.lines[0] == "abcdefghi…")
        #expect(start == 0)
        let middle = field("abcdefghijklmnopqrstuvwxyz", [.home] + Array(repeating: .right, count: 12))
        let column = middle.draw(on: screen, row: 0, column: 0, width: 10)
        #expect(screen.lines[0] == "…fghijklm…")
        #expect(screen.cells[0][column].text == "m")
        let narrow = RecordingScreen(rows: 1, columns: 6)
        let wide = field("日本語日本語", []).draw(on: narrow, row: 0, column: 0, width: 6)
        #expect(narrow.lines[0] == "…本語")
        #expect(wide == 5)
    }
}

@Suite struct SecretFieldTests {
    @Test func aMaskLongerThanTheFieldShowsAnEllipsisBeforeItsEnd() {
        let field = SecretField()
        for c in "correct horse battery staple" { _ = field.handle(.character(c)) }
        let screen = RecordingScreen(rows: 1, columns: 20)
        let cursor = field.draw(on: screen, row: 0, column: 0, width: 10)
        #expect(screen.lines[0] == "…" + String(repeating: "•", count: 8))
        #expect(cursor == 9)
        _ = field.handle(.control("u"))
        for c in "abc" { _ = field.handle(.character(c)) }
        #expect(field.draw(on: screen, row: 0, column: 0, width: 10) == 3)
        #expect(screen.lines[0] == "•••")
    }
}
