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
