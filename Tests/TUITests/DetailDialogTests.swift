import Foundation
import Testing
import KeyshelfVault
@testable import KeyshelfTUI

/// Issue 13 rule 5: the detail dialog shows everything the detail pane shows, and more.
@Suite struct DetailDialogTests {
    @Test func theDialogShowsLabelStoreProtocolAndNotes() {
        let shelf = FakeShelf()
        shelf.items[0].label = "Book club"
        let screen = RecordingScreen(rows: 30, columns: 100)
        screen.keepsFrames = true
        screen.pendingKeys = [.tab, .enter]
        let (clipboard, _) = recordingClipboard()
        let app = ShelfApp(screen: screen, shelf: shelf, configuration: TUIConfiguration(), clipboard: clipboard)
        _ = app.run()
        let pane = screen.frames.first { $0.contains("Label     Book club") } ?? ""
        #expect(pane.contains("Label     Book club"), "the pane shows the label")
        let dialog = screen.frames.last { $0.contains("Protocol:") } ?? ""
        for text in ["Label:    Book club", "Store:    shared (synced)", "Protocol: https, port 443", "note for anna"] {
            #expect(dialog.contains(text), "\(text): \(dialog)")
        }
    }
}

/// Issue 13 rule 5: notes hold several lines in the TUI form.
@Suite struct MultiLineNotesTests {
    @Test func enterInTheNotesFieldAddsALineAndCtrlSSaves() {
        let shelf = FakeShelf()
        let screen = RecordingScreen(rows: 30, columns: 100)
        let typed: [Key?] = "one".map { Key.character($0) } + [.enter] + "two".map { Key.character($0) }
        screen.pendingKeys = [.tab, .character("e"), .tab, .tab, .tab, .tab, .control("u")] + typed + [.control("s")]
        let (clipboard, _) = recordingClipboard()
        let app = ShelfApp(screen: screen, shelf: shelf, configuration: TUIConfiguration(), clipboard: clipboard)
        _ = app.run()
        #expect(shelf.items[0].comment == "one\ntwo")
    }

    @Test func aSingleLineFieldStillMovesOnWithEnter() {
        var notes = Form.Field(label: "Notes", input: .text(TextField()))
        notes.multiline = true
        let form = Form(title: "T", fields: [Form.Field(label: "A", input: .text(TextField())), notes])
        #expect(form.handle(.enter) == nil)
        #expect(form.focus == 1)
        #expect(form.footer.contains("Enter new line"))
        #expect(form.handle(.enter) == nil, "Enter in the notes does not submit")
        #expect(form.handle(.control("s")) == .submit)
        #expect(form.text(at: 1) == "\n")
    }

    @Test func theEditFormChangesLabelAndStore() {
        let shelf = FakeShelf()
        let screen = RecordingScreen(rows: 40, columns: 100)
        screen.pendingKeys = [.tab, .character("e"), .tab, .tab] + "Club".map { Key.character($0) } + [.tab, .character(" "), .control("s")]
        let (clipboard, _) = recordingClipboard()
        let app = ShelfApp(screen: screen, shelf: shelf, configuration: TUIConfiguration(), clipboard: clipboard)
        _ = app.run()
        #expect(shelf.items[0].label == "Club")
        #expect(shelf.items[0].store == .local)
    }
}
