import Foundation
import Testing
@testable import KeyshelfTUI

/// Stored dates are raw doubles: an impossible one is shown as a placeholder, never trapped on.
@Suite struct DateTextTests {
    static let impossible: [Double] = [.nan, -.nan, .infinity, -.infinity, 1e300, -1e300, .greatestFiniteMagnitude,
                                       9.3e18, -9.3e18, 1e17, 253_402_300_800]

    @Test(arguments: impossible)
    func anImpossibleDateIsThePlaceholder(seconds: Double) {
        #expect(DateText.format(Date(timeIntervalSince1970: seconds)) == DateText.placeholder)
    }

    @Test func anOrdinaryDateIsFormatted() {
        let shown = DateText.format(Date(timeIntervalSince1970: 1_800_000_000))
        #expect(shown.count == 16)
        #expect(shown.hasPrefix("2027-01-1"))
        #expect(DateText.format(Date(timeIntervalSince1970: 0)).hasPrefix("19"))
    }

    /// The detail area and the detail dialog of a record whose dates decoded to NaN and +∞.
    @Test func aRecordWithImpossibleDatesIsDrawnWithThePlaceholder() {
        let shelf = FakeShelf()
        shelf.items[0].creationDate = Date(timeIntervalSince1970: .nan)
        shelf.items[0].modificationDate = Date(timeIntervalSince1970: .infinity)
        let screen = RecordingScreen(rows: 30, columns: 100)
        screen.keepsFrames = true
        screen.pendingKeys = [.tab, .enter]
        let app = ShelfApp(screen: screen, shelf: shelf, clipboard: recordingClipboard().0)
        #expect(app.run() == .quit)
        let detail = screen.frames.first { $0.contains("Created   ") } ?? ""
        #expect(detail.contains("Created   \(DateText.placeholder)"))
        #expect(detail.contains("Modified  \(DateText.placeholder)"))
        #expect(screen.text.contains("Created:  \(DateText.placeholder)"))
    }
}
