import Foundation
import Testing
import KeyshelfCredentials
import KeyshelfCrypto
import KeyshelfVault
@testable import KeyshelfTransfer

/// Bitwarden's unencrypted JSON export and recognition by content (issue 17 item 4).
@Suite struct BitwardenJSONImportTests {
    private func plan(_ name: String) throws -> ImportPlan {
        ImportPlan(source: try ImportSource.read(path: FixtureFiles.path(name)), existing: [], store: .shared)
    }

    @Test func everyURIIsAServerAndFieldsFoldersAndTOTPAreKept() throws {
        let plan = try plan("bitwarden.json")
        #expect(plan.source.format == .bitwardenJSON)
        #expect(plan.source.rowCount == 6)
        #expect(plan.additions.map(\.server.host) == ["github.com", "gist.github.com", "com.github.android", "totp.example"])
        #expect(plan.additions[2].server.scheme == "androidapp")
        let github = plan.additions[0]
        #expect(github.account == "octocat")
        #expect(github.password == Secret(utf8: "p\"w\\é🔑"))
        #expect(github.label == "Work/Dev/GitHub")
        #expect(github.path == "/login")
        #expect(github.comment == "recovery codes in the safe\nPIN: 1234\nRegion: eu")
        #expect(github.otpauth == "otpauth://totp/GitHub:octocat?secret=JBSWY3DPEHPK3PXP&issuer=GitHub")
        #expect(github.creationDate == BitwardenJSONReader.parseDate("2023-01-02T03:04:05.678Z"))
        #expect(plan.additions[1].label == "Work/Dev/GitHub")
        #expect(plan.additions[3].otpauth == "otpauth://totp/totp.example%3Adave?secret=JBSWY3DPEHPK3PXP&issuer=totp.example")
        #expect(plan.skipped.map(\.reason) == [
            "Bitwarden secure note item, not a web login",
            "Bitwarden card item, not a web login",
        ])
        #expect(plan.skipped[0].position.description.hasPrefix("item 3 (line "))
        #expect(plan.failed.map(\.reason) == ["no URL (server)", "no password"])
    }

    @Test func encryptedExportIsRefusedNamingTheOption() throws {
        #expect(throws: TransferError.encryptedExport(path: FixtureFiles.path("bitwarden-encrypted.json"))) {
            try ImportSource.read(path: FixtureFiles.path("bitwarden-encrypted.json"))
        }
        #expect(TransferError.encryptedExport(path: "x.json").description.contains("\"JSON\" (not \"JSON (Encrypted)\")"))
    }

    @Test(arguments: [
        ("{\"items\": [", "unexpected end of the text"),
        ("{\"items\": []}\n,", "text after the JSON value"),
        ("{\"items\": [\"\\ud800\"]}", "lone UTF-16 surrogate"),
        ("{\"a\":\n\n \"x\ny\"}", "control character"),
        (String(repeating: "[", count: 100), "nested more than 64 levels"),
    ])
    func malformedJSONIsRefusedWithItsLine(text: String, reason: String) throws {
        let bytes = SecureBytes(utf8: text)
        #expect {
            try bytes.withUnsafeBytes { try BitwardenJSONReader.read($0, path: "x.json") }
        } throws: { error in
            guard case .malformedJSON(_, _, let got) = error as? TransferError else { return false }
            return got.contains(reason)
        }
    }

    @Test func lineOfAControlCharacterIsReported() throws {
        let bytes = SecureBytes(utf8: "{\"a\":\n\n \"x\ny\"}")
        #expect(throws: TransferError.malformedJSON(path: "x.json", line: 3, reason: "a control character inside a string")) {
            try bytes.withUnsafeBytes { try BitwardenJSONReader.read($0, path: "x.json") }
        }
    }

    @Test func jsonWithoutItemsIsAnUnknownFormat() throws {
        let bytes = SecureBytes(utf8: "{\"logins\": []}")
        #expect(throws: TransferError.self) { try bytes.withUnsafeBytes { try BitwardenJSONReader.read($0, path: "x.json") } }
    }

    @Test func contentDecidesTheKind() {
        func kind(_ bytes: [UInt8]) -> SourceReader.Kind { bytes.withUnsafeBytes(SourceReader.kind) }
        #expect(kind(SourceReader.kdbxSignature + [0, 0, 4, 0]) == .kdbx)
        #expect(kind(SourceReader.kdbSignature) == .kdb)
        #expect(kind([0xEF, 0xBB, 0xBF] + Array(" \n{\"items\":[]}".utf8)) == .json)
        #expect(kind(Array("name,url,username,password\n".utf8)) == .csv)
    }

    @Test func bitwardenJSONRoundTripKeepsEveryField() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("keyshelf-bwjson-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("bw.json").path
        let created = Date(timeIntervalSince1970: 1_700_000_000.25)
        var originals = BitwardenExportTests.items
        for i in originals.indices { originals[i].creationDate = created }
        try PasswordExport.write(originals, to: path, format: .bitwardenJSON)
        var back: [Item] = []
        _ = ImportPlan(source: try ImportSource.read(path: path), existing: [], store: .shared).apply(to: &back)
        #expect(Set(back.map(BitwardenExportTests.Record.init)) == Set(originals.map(BitwardenExportTests.Record.init)))
        #expect(back.allSatisfy { abs($0.creationDate.timeIntervalSince(created)) < 0.001 })
    }
}
