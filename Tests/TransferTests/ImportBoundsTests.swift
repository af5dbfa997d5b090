import Foundation
import Testing
import KeyshelfCrypto
@testable import KeyshelfTransfer

/// Row and column caps, flat field storage and the summarised report (issue 11, item 4).
@Suite struct ImportBoundsTests {
    private let header = "name,url,username,password,note\n"

    private func table(_ text: String) throws -> CSVTable {
        try CSVReader.parse(SecureBytes(utf8: text), path: "t.csv")
    }

    /// A file at the row cap, almost all of it empty rows: read, and reported in a few lines.
    @Test func repeatedReportLinesAreSummarisedAfterTheFirstFew() throws {
        let failing = 8
        let empty = CSVReader.maxRows - failing
        let text = header + String(repeating: ",,,,\n", count: empty)
            + String(repeating: "n,https://nopass.example/,carol,,\n", count: failing)
        let table = try table(text)
        #expect(table.rows.count == CSVReader.maxRows)
        // Flat storage: one 4-byte offset per field, no array per row.
        #expect(table.fieldEnds.count == 5 * (CSVReader.maxRows + 1))
        #expect(MemoryLayout<CSVTable.Row>.stride == 32)
        let source = try ImportSource(table: table, path: "t.csv", format: nil)
        let lines = ImportPlan(source: source, existing: [], store: .shared).dryRunReport.lines
        let listed = ImportReport.listedPerKind
        #expect(lines.count == 2 + (listed + 1) * 2, "\(lines.prefix(20))")
        #expect(lines.contains("  and \(empty - listed) more rows skipped: empty row"))
        #expect(lines.contains("  and \(failing - listed) more rows failed: no password"))
        #expect(lines.filter { $0.hasPrefix("  skipped row") }.count == listed)
        #expect(lines.contains("  skipped row 2 (line 2): empty row"))
    }

    @Test func oneRowOverTheCapRefusesTheWholeFile() {
        let text = "u,p\n" + String(repeating: "a,b\n", count: CSVReader.maxRows + 1)
        #expect(throws: TransferError.tooManyRows(path: "t.csv", line: CSVReader.maxRows + 2, limit: CSVReader.maxRows)) {
            try table(text)
        }
    }

    /// One line of a million commas is refused at its 65th field, with the line where the record starts.
    @Test func aRecordOverTheColumnCapRefusesTheWholeFile() throws {
        let commas = "u,p\nalice,x\n" + String(repeating: ",", count: 1_000_000) + "\n"
        #expect(throws: TransferError.tooManyColumns(path: "t.csv", line: 3, limit: CSVReader.maxColumns)) {
            try table(commas)
        }
        let wideHeader = (0...CSVReader.maxColumns).map { "c\($0)" }.joined(separator: ",") + "\n"
        #expect(throws: TransferError.tooManyColumns(path: "t.csv", line: 1, limit: CSVReader.maxColumns)) {
            try table(wideHeader)
        }
        let widest = try table((1...CSVReader.maxColumns).map { "c\($0)" }.joined(separator: ",") + "\n")
        #expect(widest.header.count == CSVReader.maxColumns)
    }

    @Test func theRefusalNamesTheCap() {
        #expect(TransferError.tooManyRows(path: "a.csv", line: 100_002, limit: 100_000).description
            == "a.csv line 100002: more than 100000 rows after the header, more than keyshelf imports at once; "
            + "split the file and import the parts (nothing was imported)")
        #expect(TransferError.tooManyColumns(path: "a.csv", line: 3, limit: 64).description
            == "a.csv line 3: a record with more than 64 fields, more than any password export has columns; nothing was imported")
    }
}
