import KeyshelfCrypto

/// The records of a CSV file as read by `CSVReader`: a header and data rows.
///
/// Field bytes live in one `SecureBytes` arena (sodium memory, wiped when the
/// table and every `Secret` taken from it are gone), so a password column can
/// be handed out as a `Secret` without ever becoming a `String`. Fields lie
/// in the arena back to back in file order, so each is kept as one 4-byte end
/// offset (`fieldEnds`) and a row as a range of those: a table costs the
/// arena plus 4 bytes per field plus `MemoryLayout<Row>.stride` per row.
public struct CSVTable: Sendable {
    /// One record: its fields as a range of `fieldEnds`.
    public struct Row: Sendable {
        /// 1-based number of the physical line where the record starts.
        public let line: Int
        /// 1-based record number counting the header as record 1 (a spreadsheet's row number).
        public let number: Int
        let fields: Range<Int>

        /// Number of fields in the record.
        public var fieldCount: Int { fields.count }
    }

    let arena: SecureBytes
    /// End offset in `arena` of every field of the file, header included; a
    /// field starts where the one before it ends (the first at 0).
    let fieldEnds: [UInt32]
    /// The first record's fields, trimmed of surrounding spaces.
    public internal(set) var header: [String]
    /// 1-based line of the header record.
    public let headerLine: Int
    /// Every record after the header, in file order.
    public let rows: [Row]

    /// Field `column` of `row` as text; "" when the row has fewer fields.
    /// The bytes were validated as UTF-8 when the file was read.
    public func string(_ row: Row, _ column: Int) -> String {
        guard let range = range(row, column) else { return "" }
        return arena.withUnsafeBytes { all in
            String(decoding: UnsafeRawBufferPointer(rebasing: all[range]), as: UTF8.self)
        }
    }

    /// Field `column` of `row` as a `Secret` sharing the arena; empty when the row has fewer fields.
    public func secret(_ row: Row, _ column: Int) -> Secret {
        Secret(storage: arena, range: range(row, column) ?? 0..<0)
    }

    /// Whether every field of `row` is empty (a blank record such as `,,,`).
    public func isBlank(_ row: Row) -> Bool {
        row.fields.isEmpty || start(ofField: row.fields.lowerBound) == Int(fieldEnds[row.fields.upperBound - 1])
    }

    /// The arena bytes of field `column` of `row`; nil when the row has fewer fields.
    private func range(_ row: Row, _ column: Int) -> Range<Int>? {
        guard column >= 0, column < row.fields.count else { return nil }
        let field = row.fields.lowerBound + column
        return start(ofField: field)..<Int(fieldEnds[field])
    }

    private func start(ofField field: Int) -> Int {
        field == 0 ? 0 : Int(fieldEnds[field - 1])
    }
}
