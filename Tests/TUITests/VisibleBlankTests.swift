import Foundation
import Testing
import KeyshelfCredentials
@testable import KeyshelfTUI

/// Blanks that look like nothing or like a space, and stacked combining marks,
/// are drawn marked (U+FFFD), under the domain's one rule (`InertScalars`).
@Suite struct VisibleBlankTests {
    static let blanks: [Unicode.Scalar] = ["\u{A0}", "\u{1680}", "\u{2000}", "\u{2005}", "\u{200A}", "\u{202F}",
                                           "\u{205F}", "\u{3000}", "\u{2800}"]

    @Test func blankLookalikesAreMarkedOnTheRecordingScreen() {
        let shelf = FakeShelf([("blank.example", nil, "alice", "p1", .shared),
                               ("blank.example", nil, "alice\u{2800}", "p2", .shared),
                               ("blank.example", nil, "bob\u{A0}\u{3000}", "p3", .shared),
                               ("blank.example", nil, "zed" + String(repeating: "\u{301}", count: 12), "p4", .shared)])
        let screen = RecordingScreen(rows: 30, columns: 100)
        let app = ShelfApp(screen: screen, shelf: shelf, clipboard: recordingClipboard().0)
        #expect(app.run() == .quit)
        let text = screen.text
        #expect(text.contains("alice\u{FFFD}"))
        #expect(text.contains("bob\u{FFFD}\u{FFFD}"))
        #expect(text.contains("zed" + String(repeating: "\u{301}", count: InertScalars.maxStackedMarks) + "\u{FFFD}"))
        for scalar in Self.blanks {
            #expect(!text.unicodeScalars.contains(scalar), "U+\(String(scalar.value, radix: 16)) drawn raw")
        }
    }
}
