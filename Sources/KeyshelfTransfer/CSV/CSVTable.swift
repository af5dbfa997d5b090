import KeyshelfCrypto

/// The records of a CSV file as read by `CSVReader`: a header and data rows.
///
/// Field bytes live in one `SecureBytes` arena (sodium memory, wiped when the
/// table and every `Secret` taken from it are gone), so a password column can
/// be handed out as a `Secret` without ever becoming a `String`.
public struct CSVTable: Sendable {
    /// One record: its fields as byte ranges of the arena.
    public struct Row: Sendable {
        /// 1-based number of the physical line where the record starts.
        public let line: Int
        /// 1-based record number counting the header as record 1 (a spreadsheet's row number).
        public let number: Int
        let fields: [Range<Int>]

        /// Number of fields in the record.
        public var fieldCount: Int { fields.count }
    }

    let arena: SecureBytes
    /// The first record's fields, trimmed of surrounding spaces.
    public let header: [String]
    /// 1-based line of the header record.
    public let headerLine: Int
    /// Every record after the header, in file order.
    public let rows: [Row]

    /// Field `column` of `row` as text; "" when the row has fewer fields.
    /// The bytes were validated as UTF-8 when the file was read.
    public func string(_ row: Row, _ column: Int) -> String {
        guard column < row.fields.count else { return "" }
        return arena.withUnsafeBytes { all in
            String(decoding: UnsafeRawBufferPointer(rebasing: all[row.fields[column]]), as: UTF8.self)
        }
    }

    /// Field `column` of `row` as a `Secret` sharing the arena; empty when the row has fewer fields.
    public func secret(_ row: Row, _ column: Int) -> Secret {
        guard column < row.fields.count else { return Secret(storage: arena, range: 0..<0) }
        return Secret(storage: arena, range: row.fields[column])
    }

    /// Whether every field of `row` is empty (a blank record such as `,,,`).
    public func isBlank(_ row: Row) -> Bool {
        row.fields.allSatisfy(\.isEmpty)
    }
}
