import Foundation
import Testing
import KeyshelfCredentials
import KeyshelfCrypto
import KeyshelfVault
@testable import KeyshelfTUI

/// Issue 15 item 3: the browser's first frame does not wait for the strength
/// estimate of a large shelf; the `!` badges appear when the background
/// estimates are in, and an edit re-estimates the one account it changed.
@Suite struct BackgroundAuditTests {
    /// More accounts than `KeyshelfShelf.inlineEstimates`, with generated
    /// passwords, plus "weakling" (weak) and "twin1"/"twin2" (one shared password).
    func vault() throws -> MemoryVault {
        let vault = MemoryVault()
        let keyshelf = try Keyshelf(vault: vault, consent: ApproveAll())
        for i in 0..<(KeyshelfShelf.inlineEstimates + 36) {
            try keyshelf.add(server: ServerName(parsing: "site\(i).example"), account: "user\(i)", password: PasswordGenerator.generate(), to: .local)
        }
        try keyshelf.add(server: ServerName(parsing: "aaa.example"), account: "weakling", password: Secret(utf8: "weakling1"), to: .local)
        for twin in ["twin1", "twin2"] {
            try keyshelf.add(server: ServerName(parsing: "aab.example"), account: twin, password: Secret(utf8: "Qm7-xKp-R4t-Wz9"), to: .local)
        }
        return vault
    }

    /// Lets the key loop's timer ticks adopt the background audit until `done` holds (at most 20 s).
    func tick(_ app: ShelfApp, until done: () -> Bool) {
        let deadline = Date().addingTimeInterval(20)
        while !done() && Date() < deadline {
            if !app.adoptBackgroundAudit() { Thread.sleep(forTimeInterval: 0.01) }
        }
    }

    @Test func badgesAppearWhenTheBackgroundEstimatesAreInAndFollowAnEdit() throws {
        let vault = try vault()
        let screen = RecordingScreen(rows: 30, columns: 100)
        let app = ShelfApp(screen: screen, shelf: try KeyshelfShelf(vault: vault), clipboard: recordingClipboard().0)
        let records = app.index.records
        let id = { (account: String) in records.first { $0.account == account }!.id }
        // The first frame does not wait: the badges come with the background batch's end.
        tick(app) { app.findingIDs.contains(id("weakling")) }
        #expect(app.findingIDs == [id("weakling"), id("twin1"), id("twin2")])
        app.draw()
        #expect(screen.text.contains("!weakling"), "\(screen.text)")
        #expect(app.findings.first { $0.id == id("weakling") }?.problems.map(\.word) == ["weak"])

        // Another process makes the password strong: one estimate, made before the next frame.
        let other = try Keyshelf(vault: vault, consent: ApproveAll())
        let entry = other.entries().first { $0.account == "weakling" }!
        try other.update(entry, CredentialChanges(password: PasswordGenerator.generate()))
        #expect(app.pickUpOutsideChanges())
        #expect(app.findingIDs == [id("twin1"), id("twin2")])
        app.draw()
        #expect(screen.text.contains(" weakling") && !screen.text.contains("!weakling"), "\(screen.text)")
    }
}
