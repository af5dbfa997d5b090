import Foundation
import Glibc
import Testing
import KeyshelfCrypto
@testable import KeyshelfTransfer

/// Hostile or huge files: field and file size caps, and long fields parsed in linear time.
@Suite struct CSVLimitTests {
    /// `header\n` + a row on line 2 + a row on line 3 whose second field is `field` quoted.
    private func file(field: [UInt8]) -> SecureBytes {
        SecureBytes(copying: Array("u,p\nalice,x\nbob,\"".utf8) + field + Array("\"\ncarol,y\n".utf8))
    }

    @Test func aFieldOverTheCapIsRefusedWithTheLineWhereItStarts() throws {
        let field = [UInt8](repeating: UInt8(ascii: "a"), count: 4 << 20)
        #expect(throws: TransferError.fieldTooLarge(path: "big.csv", line: 3, limit: CSVReader.maxFieldBytes)) {
            try CSVReader.parse(file(field: field), path: "big.csv")
        }
    }

    @Test func aFieldOfExactlyTheCapIsRead() throws {
        let table = try CSVReader.parse(file(field: [UInt8](repeating: UInt8(ascii: "b"), count: CSVReader.maxFieldBytes)), path: "cap.csv")
        #expect(table.rows.count == 3)
        #expect(table.secret(table.rows[1], 1).byteCount == CSVReader.maxFieldBytes)
        #expect(table.string(table.rows[2], 0) == "carol")
    }

    @Test func aFieldWithAMillionLineBreaksKeepsLineNumbers() throws {
        let table = try CSVReader.parse(file(field: [UInt8](repeating: 0x0A, count: 1_000_000)), path: "lines.csv")
        #expect(table.rows.map(\.line) == [2, 3, 1_000_004])
        #expect(table.secret(table.rows[1], 1).byteCount == 1_000_000)
    }

    @Test func aFileOverTheCapIsRefusedBeforeItIsRead() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("keyshelf-big-\(UUID().uuidString).csv").path
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        try #require(fd >= 0)
        defer { unlink(path) }
        // Sparse: the test writes no data, only the size counts.
        #expect(ftruncate(fd, off_t(CSVReader.maxFileBytes + 1)) == 0)
        close(fd)
        #expect(throws: TransferError.tooLarge(path: path, limit: CSVReader.maxFileBytes)) {
            try CSVReader.read(path: path)
        }
    }
}
