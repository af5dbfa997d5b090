import Foundation
import Testing
import KeyshelfCredentials
import KeyshelfCrypto
import KeyshelfVault
@testable import KeyshelfTransfer

/// Bitwarden CSV and JSON export (issue 17 item 5, issue 16 item 4).
@Suite struct BitwardenExportTests {
    private func temporaryDirectory() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("keyshelf-bwexport-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    private func imported(_ path: String) throws -> [Item] {
        var items: [Item] = []
        _ = ImportPlan(source: try ImportSource.read(path: path), existing: [], store: .shared).apply(to: &items)
        return items
    }

    /// Every attribute a Bitwarden export carries.
    struct Record: Hashable {
        let server: String, port: Int, scheme: String, path: String, account: String, label: String, comment: String
        let otpauth: String, password: [UInt8]
        init(_ item: Item) {
            server = item.server; port = item.port; scheme = item.protocol; path = item.path; account = item.account
            label = item.label; comment = item.comment; otpauth = item.otpauth
            password = item.password!.withUnsafeBytes { Array($0) }
        }
    }

    static let items = [
        Item(account: "alice", server: "example.com", path: "/login", label: "Work/Dev/Example",
             comment: "line one\nline \"two\"", otpauth: "otpauth://totp/Example:alice?secret=JBSWY3DPEHPK3PXP&issuer=Example",
             password: Secret(utf8: "p\"w\\1\n\t\u{1}x")),
        Item(account: "bob", server: "xn--bcher-kva.example", protocol: "http", port: 8080, label: "Bücher",
             password: Secret(utf8: "=SUM(1)")),
        Item(account: "carol", server: "mail.example.org", label: "Work/Mail", comment: "a, b",
             password: Secret(utf8: "mail-pw")),
    ]

    @Test func bitwardenCSVRoundTripKeepsFoldersNotesAndTOTP() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("bw.csv").path
        let summary = try PasswordExport.write(Self.items, to: path, format: .bitwarden)
        #expect(summary == PasswordExport.Summary(written: 3, notExportable: 0, otpauthLeftOut: 0, shadowed: 0))
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text.hasPrefix("\"folder\",\"favorite\",\"type\",\"name\",\"notes\",\"fields\",\"reprompt\",\"login_uri\",\"login_username\",\"login_password\",\"login_totp\"\n"))
        #expect(text.contains("\"Work/Dev\",\"\",\"login\",\"Example\""), "\(text)")
        let back = try imported(path)
        #expect(Set(back.map(Record.init)) == Set(Self.items.map(Record.init)))
    }

    @Test func chromeStillLeavesOneTimeSecretsOut() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let summary = try PasswordExport.write(Self.items, to: dir.appendingPathComponent("c.csv").path, format: .chrome)
        #expect(summary.otpauthLeftOut == 1)
    }

    @Test func bitwardenJSONHasBitwardensShape() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("bw.json").path
        try PasswordExport.write(Self.items, to: path, format: .bitwardenJSON)
        var info = stat()
        #expect(stat(path, &info) == 0 && info.st_mode & 0o777 == 0o600)
        let json = try #require(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
        #expect(json["encrypted"] as? Bool == false)
        let folders = try #require(json["folders"] as? [[String: Any]])
        #expect(Set(folders.compactMap { $0["name"] as? String }) == ["Work/Dev", "Work"])
        let items = try #require(json["items"] as? [[String: Any]])
        #expect(items.count == 3)
        let first = items[0]
        #expect(first["type"] as? Int == 1)
        #expect(first["name"] as? String == "Example")
        #expect(first["notes"] as? String == "line one\nline \"two\"")
        let folderID = try #require(first["folderId"] as? String)
        #expect(folders.first { $0["id"] as? String == folderID }?["name"] as? String == "Work/Dev")
        let login = try #require(first["login"] as? [String: Any])
        #expect(login["username"] as? String == "alice")
        #expect(login["password"] as? String == "p\"w\\1\n\t\u{1}x")
        #expect(login["totp"] as? String == "otpauth://totp/Example:alice?secret=JBSWY3DPEHPK3PXP&issuer=Example")
        let uris = try #require(login["uris"] as? [[String: Any]])
        #expect(uris.map { $0["uri"] as? String } == ["https://example.com/login"])
        #expect((first["creationDate"] as? String)?.hasSuffix("Z") == true)
        #expect(items[1]["folderId"] is NSNull)
        #expect(items[1]["notes"] is NSNull)
        #expect((items[1]["login"] as? [String: Any])?["totp"] is NSNull)
        #expect(((items[1]["login"] as? [String: Any])?["uris"] as? [[String: Any]])?.first?["uri"] as? String
                == "http://xn--bcher-kva.example:8080/")
    }

    @Test(arguments: ["", "Title", "a/b/c", "Work/", "/lead"])
    func labelPathJoinsBackToTheLabel(label: String) {
        let path = LabelPath(label: label)
        #expect(LabelPath.label(folder: path.folder, title: path.title) == label || label.hasPrefix("/") || label.hasSuffix("/"))
    }
}
