import Foundation
import Glibc
import Testing
import KeyshelfCredentials
import KeyshelfCrypto
import KeyshelfVault
@testable import KeyshelfTransfer

@Suite struct ExportTests {
    private func temporaryDirectory() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("keyshelf-export-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    private func imported(_ path: String) throws -> [Item] {
        var items: [Item] = []
        _ = ImportPlan(source: try ImportSource.read(path: path), existing: [], store: .shared).apply(to: &items)
        return items
    }

    /// The attributes a Chrome export carries, for comparing records.
    private struct Record: Hashable {
        let server: String, port: Int, scheme: String, account: String, label: String, comment: String, password: [UInt8]
        init(_ item: Item) {
            server = item.server; port = item.port; scheme = item.protocol; account = item.account
            label = item.label; comment = item.comment
            password = item.password!.withUnsafeBytes { Array($0) }
        }
    }

    @Test func roundTripThroughChromeCSVGivesTheSameRecords() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let original = try imported(FixtureFiles.path("chrome.csv")) + [
            Item(account: "root", server: "2001:db8::1", port: 8443, label: "Router 🛜", password: Secret(utf8: "v6-pw")),
            Item(account: "éva", server: "xn--bcher-kva.example", protocol: "http", port: 8080, label: "Bücher",
                 comment: "\"quoted\", and\nmore", password: Secret(utf8: "pw\nwith newline")),
        ]
        let path = dir.appendingPathComponent("out.csv").path
        let summary = try PasswordExport.write(original, to: path)
        // Chrome's format has no place for the fixture's Android app login.
        let web = original.filter { $0.protocol != "androidapp" }
        #expect(summary.written == web.count)
        #expect(summary.appLoginsLeftOut == 1)

        let back = try imported(path)
        #expect(Set(back.map(Record.init)) == Set(web.map(Record.init)))
        #expect(back.count == web.count)
    }

    @Test func fileIsCreatedWithMode0600AndQuotedFields() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("out.csv").path
        let previous = umask(0)
        defer { umask(previous) }
        let item = Item(account: "al", server: "xn--fa-hia.example", port: 8443, label: "Fa\"ß",
                        comment: "a, b\nc", password: Secret(utf8: "p,w\"1"))
        try PasswordExport.write([item], to: path)
        var info = stat()
        #expect(stat(path, &info) == 0)
        #expect(info.st_mode & 0o777 == 0o600)
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text == "\"name\",\"url\",\"username\",\"password\",\"note\"\n\"Fa\"\"ß\",\"https://xn--fa-hia.example:8443/\",\"al\",\"p,w\"\"1\",\"a, b\nc\"\n")
    }

    @Test func existingFileIsNeitherOverwrittenNorFollowed() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("taken.csv").path
        try Data("keep me".utf8).write(to: URL(fileURLWithPath: path))
        let item = Item(account: "al", server: "a.example", password: Secret(utf8: "pw"))
        #expect(throws: TransferError.unwritable(path: path, reason: "the file already exists; choose a new name")) {
            try PasswordExport.write([item], to: path)
        }
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "keep me")

        let link = dir.appendingPathComponent("link.csv").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: dir.appendingPathComponent("target.csv").path)
        #expect(throws: TransferError.self) { try PasswordExport.write([item], to: link) }
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("target.csv").path))
    }

    @Test func onlyLiveInternetPasswordsAreExportedOnce() throws {
        let pw = Secret(utf8: "pw")
        let items = [
            Item(account: "al", server: "a.example", password: pw),
            Item(account: "al", server: "a.example", synchronizable: true, password: Secret(utf8: "pw")),
            Item(account: "al", server: "a.example", password: Secret(utf8: "other")),
            Item(account: "gone", server: "a.example", password: pw, isDeleted: true),
            Item(itemClass: .genericPassword, account: "svc", service: "backup", password: pw),
            Item(account: "otp", server: "b.example", otpauth: "otpauth://totp/x?secret=AB", password: pw),
        ]
        // One row per (server, scheme, port, account): the first item wins, a
        // later one with another password is counted as shadowed.
        let exported = PasswordExport.exportable(items)
        #expect(exported.map(\.account) == ["al", "otp"])
        #expect(exported.first?.synchronizable == false)
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let summary = try PasswordExport.write(items, to: dir.appendingPathComponent("o.csv").path)
        #expect(summary == PasswordExport.Summary(written: 2, notExportable: 1, otpauthLeftOut: 1, shadowed: 1))
    }

    @Test func itemsImportCouldNotReadBackAreLeftOutAndCounted() throws {
        let items = [
            Item(account: "bin", server: "a.example", password: Secret(SecureBytes(copying: [0xFF, 0xFE, 0x41]))),
            // Shadowed by the unwritable local item: never written in its place.
            Item(account: "bin", server: "a.example", synchronizable: true, password: Secret(utf8: "shared")),
            Item(account: "nul", server: "a.example", password: Secret(SecureBytes(copying: [0x61, 0x00]))),
            Item(account: "note\u{0}", server: "a.example", password: Secret(utf8: "pw")),
            Item(account: "ok", server: "a.example", password: Secret(utf8: "pw")),
        ]
        #expect(PasswordExport.exportable(items).map(\.account) == ["ok"])
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("o.csv").path
        let summary = try PasswordExport.write(items, to: path)
        #expect(summary == PasswordExport.Summary(written: 1, notExportable: 0, otpauthLeftOut: 0, shadowed: 1, unwritable: 3))
        #expect(try imported(path).map(\.account) == ["ok"])
    }

    @Test func warningSaysTheFileIsNotForASpreadsheet() {
        let warning = PasswordExport.warning(path: "out.csv", count: 3)
        #expect(warning.contains("NOT encrypted"))
        #expect(warning.contains("do not open it in a spreadsheet"))
        #expect(warning.contains("=, +, - or @ as a formula"))
    }
}
