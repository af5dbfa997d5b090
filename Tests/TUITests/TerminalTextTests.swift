import Foundation
import Testing
@testable import KeyshelfClipboard
@testable import KeyshelfTUI

@Suite struct TerminalTextTests {
    @Test func escapeSequencesBecomeInertSymbols() {
        let hostile = "evil\u{1B}]0;pwned\u{07}.example"
        let safe = TerminalText.sanitize(hostile)
        #expect(safe == "evil␛]0;pwned␇.example")
        #expect(!safe.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) })
    }

    @Test func c1DelAndBidiControlsAreReplaced() {
        #expect(TerminalText.sanitize("a\u{9B}31mb") == "a\u{FFFD}31mb")
        #expect(TerminalText.sanitize("x\u{7F}") == "x␡")
        #expect(TerminalText.sanitize("abc\u{202E}cod.exe") == "abc\u{FFFD}cod.exe")
        #expect(TerminalText.sanitize("a\u{2067}b\u{2069}") == "a\u{FFFD}b\u{FFFD}")
        #expect(TerminalText.sanitize("line1\nline2\ttab") == "line1␊line2␉tab")
    }

    @Test func printableUnicodeIsKept() {
        #expect(TerminalText.sanitize("bücher.example 日本 👍 e\u{301}") == "bücher.example 日本 👍 e\u{301}")
    }

    @Test func columnWidths() {
        #expect(TerminalText.columns("abc") == 3)
        #expect(TerminalText.columns("日本語") == 6)
        #expect(TerminalText.columns("e\u{301}") == 1)
        #expect(TerminalText.columns("👍") == 2)
        #expect(TerminalText.columns("bücher") == 6)
    }

    @Test func truncationNeverSplitsWideCharactersOrGraphemes() {
        #expect(TerminalText.truncate("日本語のテキスト", toColumns: 6) == "日本…")
        #expect(TerminalText.columns(TerminalText.truncate("日本語のテキスト", toColumns: 6)) == 5)
        #expect(TerminalText.truncate("e\u{301}e\u{301}e\u{301}e\u{301}", toColumns: 3) == "e\u{301}e\u{301}…")
        #expect(TerminalText.truncate("👍👍👍", toColumns: 4) == "👍…")
        #expect(TerminalText.truncate("short", toColumns: 10) == "short")
        #expect(TerminalText.truncate("exactly", toColumns: 7) == "exactly")
        #expect(TerminalText.truncate("abcdefgh", toColumns: 4) == "abc…")
    }

    @Test func truncationCanKeepTheEnd() {
        #expect(TerminalText.truncate("abcdefgh", toColumns: 4, keeping: .end) == "…fgh")
        #expect(TerminalText.truncate("日本語テキスト", toColumns: 6, keeping: .end) == "…スト")
        #expect(TerminalText.truncate("short", toColumns: 10, keeping: .end) == "short")
    }

    @Test func wrapWithALineLimitMarksTheCut() {
        #expect(TerminalText.wrap("one two three four", width: 9, maxLines: 2) == ["one two", "three…"])
        #expect(TerminalText.wrap("one two three four", width: 9, maxLines: 3) == ["one two", "three", "four"])
        #expect(TerminalText.wrap("aaaa bbbb cccc", width: 4, maxLines: 2) == ["aaaa", "bbb…"])
    }

    @Test func wrapIndentsContinuationLines() {
        #expect(TerminalText.wrap("k   one two three", width: 11, hangingIndent: 4) == ["k   one two", "    three"])
        #expect(TerminalText.wrap("k   abcdefghijk", width: 8, hangingIndent: 4) == ["k   abcd", "    efgh", "    ijk"])
        #expect(TerminalText.wrap("a b", width: 2, hangingIndent: 4) == ["a", "b"])
    }

    @Test func wrapBreaksAtSpacesAndHardBreaksLongWords() {
        #expect(TerminalText.wrap("the quick brown fox", width: 10) == ["the quick", "brown fox"])
        #expect(TerminalText.wrap("abcdefghij", width: 4) == ["abcd", "efgh", "ij"])
        #expect(TerminalText.wrap("one\ntwo", width: 10) == ["one", "two"])
        #expect(TerminalText.wrap("日本語日本語", width: 5) == ["日本", "語日", "本語"])
    }
}

@Suite struct RecordingScreenTests {
    @Test func wideCharactersTakeTwoCellsAndClipAtTheEdge() {
        let screen = RecordingScreen(rows: 2, columns: 10)
        screen.put("日本語テキスト", row: 0, column: 0, role: .normal)
        #expect(screen.lines[0] == "日本語テ…")
        screen.put("abc日", row: 1, column: 7, role: .accent)
        #expect(screen.lines[1] == "       ab…")
        #expect(screen.role(row: 1, column: 8) == .accent)
        screen.put("abc", row: 1, column: 7, role: .normal)
        #expect(screen.lines[1] == "       abc")
    }

    @Test func putSanitisesEverything() {
        let screen = RecordingScreen(rows: 1, columns: 40)
        screen.put("x\u{1B}]0;title\u{07}y", row: 0, column: 0, role: .normal)
        #expect(screen.lines[0] == "x␛]0;title␇y")
    }

    @Test func combiningMarksJoinTheirBaseCell() {
        let screen = RecordingScreen(rows: 1, columns: 5)
        screen.put("e\u{301}x", row: 0, column: 0, role: .normal)
        #expect(screen.cells[0][0].text == "e\u{301}")
        #expect(screen.cells[0][1].text == "x")
    }
}

@Suite struct ClipboardTests {
    @Test func base64MatchesFoundation() {
        for text in ["", "a", "ab", "abc", "abcd", "pässwörd-日本", "\u{0}\u{FF}x"] {
            let bytes = Array(text.utf8)
            #expect(String(decoding: bytes.withUnsafeBytes { Clipboard.base64($0) }, as: UTF8.self) == Data(bytes).base64EncodedString())
        }
    }
}
