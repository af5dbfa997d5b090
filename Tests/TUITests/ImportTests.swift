import Foundation
import Testing
import KeyshelfCredentials
import KeyshelfCrypto
import KeyshelfTransfer
import KeyshelfVault
@testable import KeyshelfTUI

/// The `i` import action over the real facade and KeyshelfTransfer
/// (`KeyshelfShelf` on a `MemoryVault`), driven by keys on a recording screen.
@Suite final class ImportTests {
    /// This test's files, removed when it ends; short names, as every character is a typed key.
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ks-import-\(UUID().uuidString.prefix(8))")

    init() throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: folder)
    }

    /// A vault holding "anna" on bücher.example (shared, password `pw-anna`).
    func vault() throws -> MemoryVault {
        let vault = MemoryVault()
        let keyshelf = try Keyshelf(vault: vault, consent: ApproveAll())
        try keyshelf.add(server: ServerName(parsing: "bücher.example"), account: "anna", password: Secret(utf8: "pw-anna"), to: .shared)
        return vault
    }

    /// Writes `bytes` to a new file in the test's folder and returns its path.
    func file(_ bytes: [UInt8], name: String? = nil) throws -> String {
        let url = folder.appendingPathComponent(name ?? "\(UUID().uuidString.prefix(8)).csv")
        try Data(bytes).write(to: url)
        return url.path
    }

    func file(_ text: String, name: String? = nil) throws -> String {
        try file(Array(text.utf8), name: name)
    }

    /// `i`, the path, Enter through Format and Store (which submits): the report dialog opens.
    func openReport(_ path: String, local: Bool = false) -> [Key?] {
        [.character("i")] + path.map { Key.character($0) } + [.enter, .enter] + (local ? [.character(" ")] : []) + [.enter]
    }

    func run(_ vault: MemoryVault, _ keys: [Key?]) throws -> RecordingScreen {
        let screen = RecordingScreen(rows: 30, columns: 100)
        screen.keepsFrames = true
        screen.pendingKeys = keys
        let (clipboard, _) = recordingClipboard()
        _ = ShelfApp(screen: screen, shelf: try KeyshelfShelf(vault: vault), clipboard: clipboard).run()
        return screen
    }

    func entries(_ vault: MemoryVault) throws -> [CredentialEntry] {
        try Keyshelf(vault: vault).entries()
    }

    func password(_ vault: MemoryVault, _ account: String) throws -> String? {
        let keyshelf = try Keyshelf(vault: vault)
        let entry = try #require(keyshelf.entries().first { $0.account == account })
        return try keyshelf.reveal(entry).unsafeString()
    }

    /// The text drawn in the error role, rows joined by spaces (a wrapped message read whole).
    func errorText(_ screen: RecordingScreen) -> String {
        screen.cells.map { row in row.filter { $0.role == .error }.map(\.text).joined().trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }.joined(separator: " ")
    }

    static let chrome = """
        name,url,username,password,note
        New,https://new.example/login,alice,pw-alice,
        Books,https://bücher.example/,anna,pw-anna,
        Nopass,https://nopass.example/,carol,,

        """

    @Test func reportDialogShowsRowsWithReasonsAndScrolls() throws {
        // Each duplicate names another row, so no two report lines are of one kind and none is summarised.
        let rows = (1...30).map { "N\($0),https://n\($0).example/,user\($0),pw\($0)," }
        let path = try file((["name,url,username,password,note", "Good,https://good.example/,gus,pw-gus,"] + rows + rows)
            .joined(separator: "\n"))
        let vault = try vault()
        let screen = try run(vault, openReport(path) + [nil, .end])
        let first = try #require(screen.frames.first { $0.contains("Import 31 Passwords?") })
        #expect(first.contains("Chrome export"))
        #expect(first.contains("into the shared store"))
        #expect(first.contains("would import 31, would update 0, skipped 30, failed 0"))
        #expect(first.contains("skipped row 33 (line 33): \"user1\" on n1.example: duplicate of row 3"))
        #expect(first.contains("↑↓ 1–24 of"))
        #expect(!first.contains("row 62"))
        // End scrolls to the last row; Cancel keeps focus, so the input ending declines.
        #expect(screen.text.contains("skipped row 62 (line 62): \"user30\" on n30.example: duplicate of row 32"))
        #expect(!screen.text.contains("↑↓ 1–24 of"))
        #expect(try entries(vault).map(\.account) == ["anna"])
    }

    /// Forty rows failing for one reason: five listed, the rest counted in one line.
    @Test func reportDialogSummarisesRowsOfOneKind() throws {
        let rows = (1...40).map { "N\($0),https://n\($0).example/,user\($0),," }
        let path = try file((["name,url,username,password,note", "Good,https://good.example/,gus,pw-gus,"] + rows).joined(separator: "\n"))
        let screen = try run(try vault(), openReport(path))
        let first = try #require(screen.frames.first { $0.contains("Import 1 Password?") })
        #expect(first.contains("failed row 7 (line 7): \"user5\" on n5.example: no password"))
        #expect(!first.contains("row 8 "))
        #expect(first.contains("and 35 more rows failed: no password"))
        #expect(!first.contains("↑↓"))
    }

    @Test func cancelImportsNothing() throws {
        let path = try file(Self.chrome)
        for cancel in [[Key.enter], [.escape], [.tab, .character("n")]] {
            let vault = try vault()
            let saves = vault.saveCount
            let screen = try run(vault, openReport(path) + cancel)
            #expect(screen.frames.contains { $0.contains("Import 1 Password?") && $0.contains("[ Cancel ]  [ Import ]") })
            #expect(screen.text.contains("Nothing was imported."))
            #expect(vault.saveCount == saves)
            #expect(try entries(vault).map(\.account) == ["anna"])
        }
    }

    @Test func importWritesTheRowsAndShowsTheNewDomain() throws {
        let path = try file(Self.chrome, name: "chrome.csv")
        let vault = try vault()
        let screen = try run(vault, openReport(path) + [.tab, .enter])
        let alice = try #require(try entries(vault).first { $0.account == "alice" })
        #expect(alice.server.host == "new.example")
        #expect(alice.store == .shared)
        #expect(try password(vault, "alice") == "pw-alice")
        #expect(screen.text.contains("chrome.csv: imported 1, updated 0, skipped 1, failed 1."))
        #expect(screen.text.contains("Accounts of new.example"))
    }

    @Test func theStoreChoiceImportsIntoTheLocalStore() throws {
        let path = try file(Self.chrome)
        let vault = try vault()
        let screen = try run(vault, openReport(path, local: true) + [.tab, .enter])
        #expect(screen.frames.contains { $0.contains("into the local store") })
        let alice = try #require(try entries(vault).first { $0.account == "alice" })
        #expect(alice.store == .local)
    }

    @Test func updatesGoThroughTheUpdateConsentDialog() throws {
        let path = try file("name,url,username,password\nBooks,https://bücher.example/,anna,pw-new\nNew,https://new.example/,alice,pw-alice\n")
        let declined = try vault()
        let screen = try run(declined, openReport(path) + [.tab, .enter, .enter])
        #expect(screen.frames.contains { $0.contains("Import 2 Passwords?") && $0.contains("would update row 2 (line 2): \"anna\" on bücher.example") })
        let consent = try #require(screen.frames.first { $0.contains("[ Not Now ]  [ Update ]") })
        #expect(consent.contains("Update Saved Password?"))
        #expect(consent.contains("anna"))
        #expect(try password(declined, "anna") == "pw-anna")
        #expect(try password(declined, "alice") == "pw-alice")
        #expect(screen.text.contains("imported 1, updated 0, skipped 1, failed 0"))

        let approved = try vault()
        _ = try run(approved, openReport(path) + [.tab, .enter, .tab, .enter])
        #expect(try password(approved, "anna") == "pw-new")
    }

    @Test func aFileThatCannotBeReadShowsWhyAndChangesNothing() throws {
        let cases: [(path: String, message: String)] = [
            (try file("name,url,username,password,note\nexample.com,https://example.com/,alice,pw,\nbad.example,https://bad.example/,bo\"b,pw,\n"),
             "line 3: malformed CSV"),
            (try file(Array("name,url,username,password\nx,https://x.example/,caf".utf8) + [0xE9] + Array(",pw\n".utf8)),
             "line 2: not UTF-8 text"),
            (folder.appendingPathComponent("missing.csv").path,
             "cannot read"),
        ]
        for (path, message) in cases {
            let vault = try vault()
            let saves = vault.saveCount
            let screen = try run(vault, [.character("i")] + path.map { Key.character($0) } + [.control("s")])
            // The form stays open with the reason (wrapped, so the line number is never cut off).
            #expect(screen.text.contains("Import Passwords"))
            #expect(errorText(screen).contains(message), "\(errorText(screen))")
            #expect(!screen.frames.contains { $0.contains("Password?") })
            #expect(vault.saveCount == saves)
            #expect(try entries(vault).map(\.account) == ["anna"])
        }
    }

    /// docs/tui.md's Import section names every choice of the form's Format
    /// field (`auto` and each `ImportFormat`) and how many there are.
    @Test func theDocsNameEveryFormatTheFormOffers() throws {
        let docs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("docs/tui.md")
        let text = try String(contentsOf: docs, encoding: .utf8)
        let section = try #require(text.components(separatedBy: "\n## Import\n").dropFirst().first?.components(separatedBy: "\n## ").first)
        let choices = ["auto"] + ImportFormat.allCases.map(\.rawValue)
        #expect(section.contains("the \(choices.count) choices of `keyshelf import"), "\(section)")
        for choice in choices { #expect(section.contains("`\(choice)`"), "docs/tui.md, Import: \(choice)") }
    }
}
