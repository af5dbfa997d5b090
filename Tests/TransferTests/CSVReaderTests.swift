import Foundation
import Testing
import KeyshelfCrypto
@testable import KeyshelfTransfer

@Suite struct CSVReaderTests {
    private func parse(_ text: String) throws -> CSVTable {
        try CSVReader.parse(SecureBytes(utf8: text), path: "test.csv")
    }

    private func strings(_ table: CSVTable) -> [[String]] {
        table.rows.map { row in (0..<row.fieldCount).map { table.string(row, $0) } }
    }

    @Test func quotedCommasQuotesAndNewlinesSurvive() throws {
        let table = try parse("a,b,c\n\"x,y\",\"say \"\"hi\"\"\",\"one\ntwo\"\nplain,,last\n")
        #expect(table.header == ["a", "b", "c"])
        #expect(strings(table) == [["x,y", "say \"hi\"", "one\ntwo"], ["plain", "", "last"]])
        #expect(table.rows.map(\.line) == [2, 4])
        #expect(table.rows.map(\.number) == [2, 3])
    }

    @Test func byteOrderMarkAndCRLFAreDropped() throws {
        let table = try parse("\u{FEFF}name,url\r\nx,https://example.com/\r\ny,z\r\n")
        #expect(table.header == ["name", "url"])
        #expect(strings(table) == [["x", "https://example.com/"], ["y", "z"]])
        #expect(table.rows.map(\.line) == [2, 3])
    }

    @Test func oldMacLineEndsCountAsLines() throws {
        let table = try parse("a,b\r1,\"x\ry\"\r2,z\r")
        #expect(strings(table) == [["1", "x\ry"], ["2", "z"]])
        #expect(table.rows.map(\.line) == [2, 4])
        #expect(throws: TransferError.notUTF8(path: "test.csv", line: 3)) {
            try CSVReader.parse(SecureBytes(copying: Array("a\r\nb\rc\u{FF}".utf8.dropLast(2)) + [0xFF]), path: "test.csv")
        }
    }

    @Test func spacesAroundUnquotedFieldsAreKept() throws {
        let table = try parse("p\n  padded  \n")
        #expect(strings(table) == [["  padded  "]])
    }

    @Test func lastLineWithoutNewlineIsRead() throws {
        let table = try parse("a,b\n1,2")
        #expect(strings(table) == [["1", "2"]])
    }

    @Test func passwordColumnIsASecretOfTheSameBytes() throws {
        let table = try parse("u,p\nalice,\"s,3\"\n")
        #expect(table.secret(table.rows[0], 1) == Secret(utf8: "s,3"))
        #expect(table.secret(table.rows[0], 7).byteCount == 0)
    }

    @Test func malformedFixtureNamesLineThree() throws {
        let path = FixtureFiles.path("malformed.csv")
        do {
            _ = try CSVReader.read(path: path)
            Issue.record("malformed file was accepted")
        } catch let TransferError.malformed(errorPath, line, _) {
            #expect(errorPath == path)
            #expect(line == 3)
        }
    }

    @Test func truncatedInsideQuotesNamesTheLineWhereTheFieldOpens() throws {
        let path = FixtureFiles.path("truncated.csv")
        #expect(throws: TransferError.unterminatedQuote(path: path, line: 3)) {
            try CSVReader.read(path: path)
        }
    }

    @Test func textAfterClosingQuoteIsRefused() throws {
        #expect(throws: TransferError.malformed(path: "test.csv", line: 2, reason: "error parsing data while strict checking enabled")) {
            try parse("a,b\n\"x\"y,z\n")
        }
    }

    @Test func nonUTF8IsRefusedWithItsLine() throws {
        let path = FixtureFiles.path("latin1.csv")
        #expect(throws: TransferError.notUTF8(path: path, line: 3)) {
            try CSVReader.read(path: path)
        }
    }

    @Test func nulByteIsRefused() throws {
        #expect(throws: TransferError.notUTF8(path: "test.csv", line: 2)) {
            try parse("a\nx\u{0}y\n")
        }
    }

    @Test func emptyFileIsRefused() throws {
        #expect(throws: TransferError.empty(path: "test.csv")) { try parse("") }
        #expect(throws: TransferError.empty(path: "test.csv")) { try parse("\u{FEFF}\r\n") }
    }

    @Test func missingFileIsUnreadable() throws {
        #expect(throws: TransferError.unreadable(path: "/nonexistent/x.csv", reason: "No such file or directory")) {
            try CSVReader.read(path: "/nonexistent/x.csv")
        }
        #expect(throws: TransferError.unreadable(path: "/tmp", reason: "not a regular file")) {
            try CSVReader.read(path: "/tmp")
        }
    }

    @Test func readingLeavesTheFileUntouched() throws {
        let path = FixtureFiles.path("chrome.csv")
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        _ = try CSVReader.read(path: path)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
    }
}
