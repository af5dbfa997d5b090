import Foundation
import Testing
import KeyshelfCredentials
import KeyshelfCrypto
import KeyshelfVault
@testable import KeyshelfTransfer

/// Hostile import files found in a security review: each must be refused or
/// reported clearly, never crash, hang or store what export cannot write back.
@Suite struct ImportHardeningTests {
    static func json(_ bytes: [UInt8]) throws -> ImportSource {
        let secure = SecureBytes(byteCount: bytes.count)
        secure.withUnsafeMutableBytes { $0.copyBytes(from: bytes) }
        return try secure.withUnsafeBytes { try BitwardenJSONReader.read($0, path: "x.json") }
    }

    static func json(_ text: String) throws -> ImportSource { try json(Array(text.utf8)) }

    @Test(arguments: ["1e999", "-1e999", "-9.3e18", "9.3e18", "1.5", "-0.5"])
    func aNonIntegralOrHugeItemTypeIsSkippedAsUnknown(type: String) throws {
        let source = try Self.json("{\"items\":[{\"type\":\(type),\"name\":\"x\"}]}")
        #expect(source.skipped.map(\.reason) == ["Bitwarden item of an unknown type, not a web login"])
    }

    @Test func anIntegralUnknownTypeIsNamed() throws {
        let source = try Self.json("{\"items\":[{\"type\":7,\"name\":\"x\"},{\"name\":\"y\"}]}")
        #expect(source.skipped.map(\.reason) == ["Bitwarden type 7 item, not a web login", "Bitwarden untyped item, not a web login"])
    }

    static func secret(_ bytes: [UInt8]) -> Secret {
        let secure = SecureBytes(byteCount: bytes.count)
        secure.withUnsafeMutableBytes { $0.copyBytes(from: bytes) }
        return Secret(secure)
    }

    /// Every reader (CSV, JSON, KDBX, pass) hands its entries to `EntryMapper`, so this is the rule for all of them.
    @Test(arguments: [[0x70, 0x00, 0x77], [0xFE, 0xFF], [0x70, 0x00, 0x77, 0xFF]] as [[UInt8]])
    func aPasswordThatIsNotTextFailsItsRow(bytes: [UInt8]) {
        let entry = ImportEntry(position: RowPosition(row: 1, line: 1, noun: "entry"), uris: ["https://example.com"],
                                account: "alice", password: Self.secret(bytes))
        let outcomes = EntryMapper.map(entry)
        guard case .failed(let row)? = outcomes.first, outcomes.count == 1 else { Issue.record("not failed: \(outcomes)"); return }
        #expect(row.reason == "password not UTF-8 text, or a NUL byte")
    }

    @Test func aJSONPasswordWithAnEscapedNULFailsItsRow() throws {
        let source = try Self.json("{\"items\":[{\"type\":1,\"name\":\"x\",\"login\":{\"username\":\"a\",\"password\":\"p\\u0000w\",\"uris\":[{\"uri\":\"https://example.com\"}]}}]}")
        #expect(source.candidates.isEmpty)
        #expect(source.failed.map(\.reason) == ["password not UTF-8 text, or a NUL byte"])
    }

    @Test func aJSONFileWithBytesThatAreNotUTF8IsRefused() throws {
        let bytes = Array("{\"items\":[\n{\"type\":1,\"name\":\"".utf8) + [0xFE, 0xFF] + Array("\"}]}".utf8)
        #expect(throws: TransferError.notUTF8(path: "x.json", line: 2)) { try Self.json(bytes) }
    }

    @Test func aSkippedItemIsNamedByItsQuotedName() throws {
        let source = try Self.json("{\"items\":[{\"type\":3,\"name\":\"Visa\"}]}")
        #expect(source.skipped.map(ImportReport.describe) == ["\"Visa\": Bitwarden card item, not a web login"])
    }

    @Test func aHugeValueIsCutInTheReportLine() throws {
        let name = String(repeating: "n", count: 100_000)
        let source = try Self.json("{\"items\":[{\"type\":3,\"name\":\"\(name)\"}]}")
        let line = try #require(source.skipped.map(ImportReport.describe).first)
        #expect(line == "\"" + String(repeating: "n", count: ImportReport.maxValueCharacters) + "…\": Bitwarden card item, not a web login")
        let row = ReportedRow(position: RowPosition(row: 1, line: 1), server: name, account: name, reason: name)
        #expect(ImportReport.describe(row).count < 4 * ImportReport.maxValueCharacters)
    }

    @Test func aFIFOIsRefusedWithoutBlocking() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("keyshelf-fifo-\(UUID().uuidString)").path
        #expect(mkfifo(path, 0o600) == 0)
        defer { unlink(path) }
        #expect(throws: TransferError.unreadable(path: path, reason: "not a regular file")) { try ImportSource.read(path: path) }
    }
}
