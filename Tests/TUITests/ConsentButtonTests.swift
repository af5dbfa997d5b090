import Foundation
import Testing
import KeyshelfCredentials
@testable import KeyshelfTUI

/// Consent dialogs draw a button as destructive because the request says so
/// (`ConsentRequest.destructiveButtons`), never because of its label (issue 12 item 4).
@Suite struct ConsentButtonTests {
    /// The screen as the dialog of `request` left it (no key: the dialog is drawn once, then declined).
    func dialog(_ request: ConsentRequest) -> RecordingScreen {
        let screen = RecordingScreen(rows: 24, columns: 100)
        let (clipboard, _) = recordingClipboard()
        let app = ShelfApp(screen: screen, shelf: FakeShelf(), clipboard: clipboard)
        #expect(PromptBridge(app, verify: { _ in false }).ask(request) == .declined)
        return screen
    }

    /// The role of the first cell of the button `[ label ]`.
    func role(ofButton label: String, on screen: RecordingScreen) throws -> Role {
        let row = try #require(screen.lines.firstIndex { $0.contains("[ \(label) ]") }, "\(screen.text)")
        let line = screen.lines[row]
        let start = try #require(line.range(of: "[ \(label) ]")).lowerBound
        return screen.role(row: row, column: line.distance(from: line.startIndex, to: start))
    }

    @Test func theRequestNamesItsDestructiveButtons() {
        let server = ServerName(host: "example.com", port: 0)
        #expect(ConsentRequest.delete(server: server, account: "a").destructiveButtons == [1])
        #expect(ConsentRequest.update(server: server, account: "a").destructiveButtons == [1])
        #expect(ConsentRequest.deleteService(service: "s", account: "a").destructiveButtons == [1])
        #expect(ConsentRequest.updateService(service: "s", account: "a").destructiveButtons == [1])
        #expect(ConsentRequest.release(server: server, accounts: ["Delete", "b"]).destructiveButtons.isEmpty)
        #expect(ConsentRequest.releaseToClient(client: "c", server: server, accounts: ["Update"]).destructiveButtons.isEmpty)
    }

    @Test func deleteAndUpdateDialogsDrawTheirApprovingButtonAsDestructive() throws {
        let server = ServerName(host: "example.com", port: 0)
        let delete = dialog(.delete(server: server, account: "alice"))
        #expect(try role(ofButton: "Delete", on: delete) == .buttonDanger)
        #expect(try role(ofButton: "Cancel", on: delete) == .buttonFocused)
        let update = dialog(.update(server: server, account: "alice"))
        #expect(try role(ofButton: "Update", on: update) == .buttonDanger)
    }

    @Test func anAccountNamedDeleteInAReleaseDialogIsNotDestructive() throws {
        let release = dialog(.release(server: ServerName(host: "example.com", port: 0), accounts: ["Delete", "Update"]))
        #expect(try role(ofButton: "Delete", on: release) == .button)
        #expect(try role(ofButton: "Update", on: release) == .button)
    }
}
