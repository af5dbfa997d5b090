import Foundation
import KeyshelfCrypto

/// An import file read, recognised and mapped row by row; no vault involved yet.
public struct ImportSource: Sendable {
    /// The file as given by the user.
    public let path: String
    /// The format it was read as (detected or chosen).
    public let format: ImportFormat
    /// Header columns keyshelf does not use, as spelled in the file.
    public let ignoredColumns: [String]
    /// Number of data rows (records after the header).
    public let rowCount: Int
    /// Rows that map to web logins, in file order.
    public let candidates: [ImportCandidate]
    /// Rows deliberately not imported (not web logins, empty rows).
    public let skipped: [ReportedRow]
    /// Rows imported with part of them left out (user info in the URL), each with what was dropped.
    public let notes: [ReportedRow]
    /// Rows that cannot be imported (no password, no server, bad URL, bad field count).
    public let failed: [ReportedRow]

    /// Reads the file at `path` (`-`: standard input), or the pass store in
    /// the directory `path`, never modifying it, and maps its records.
    /// - Parameter format: the format to read, or nil to recognise it by content
    ///   (a JSON object is Bitwarden's JSON export; a CSV file by its header line, DESIGN §9).
    /// - Throws: `TransferError` when the source as a whole is unreadable, not
    ///   UTF-8, malformed, truncated inside quotes, of an unknown format, lacks
    ///   the chosen format's columns, or is encrypted.
    /// - Parameter sourcePassword: asked only for a KeePass database, for its password.
    public static func read(path: String, format: ImportFormat? = nil,
                            sourcePassword: (() throws -> Secret)? = nil) throws -> ImportSource {
        var isDirectory: ObjCBool = false
        if path != "-", FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
            guard format == .pass || (format == nil && PassStoreReader.isStore(path)) else {
                throw TransferError.unreadable(path: path, reason: format == nil
                    ? "a directory without .gpg-id, not a pass store; pass --format pass to read its .gpg files anyway"
                    : "a directory; only --format pass reads one")
            }
            return try PassStoreReader.read(directory: path)
        }
        if format == .pass {
            throw TransferError.unreadable(path: path, reason: "not a directory; --format pass reads a pass store's directory")
        }
        let bytes = try SourceReader.read(path: path)
        let name = path == "-" ? "standard input" : path
        let kind = bytes.withUnsafeBytes(SourceReader.kind)
        switch kind {
        case .kdb:
            throw TransferError.unsupportedSource(path: name, what: "a KeePass 1 database (.kdb)",
                                                  hint: "open it in KeePassXC, save it as KDBX 4 and import that")
        case .kdbx where format == nil || format == .kdbx:
            guard let sourcePassword else {
                throw TransferError.unsupportedSource(path: name, what: "a KeePass database", hint: "its password is needed to read it")
            }
            let password = try sourcePassword()
            return try bytes.withUnsafeBytes { try KDBXReader.read($0, path: name, password: password) }
        case .kdbx:
            throw TransferError.unsupportedSource(path: name, what: "a KeePass database (KDBX)", hint: "use --format kdbx or auto")
        case _ where format == .kdbx:
            throw TransferError.unsupportedSource(path: name, what: "not a KeePass database (no KDBX signature)", hint: "check the file or its --format")
        case .json where format == nil || format == .bitwardenJSON:
            return try bytes.withUnsafeBytes { try BitwardenJSONReader.read($0, path: name) }
        case .csv where format == .bitwardenJSON:
            throw TransferError.malformedJSON(path: name, line: 1, reason: "not a JSON object")
        default:
            return try ImportSource(table: CSVReader.parse(bytes, path: name), path: name, format: format)
        }
    }

    /// Maps an already parsed `table`; `path` only names the source in errors.
    /// - Throws: `TransferError.unknownFormat`, `.missingColumns`.
    public init(table: CSVTable, path: String, format: ImportFormat?) throws {
        guard let chosen = format ?? ImportFormat.detect(header: table.header) else {
            throw TransferError.unknownFormat(path: path, header: table.header)
        }
        let columns = try ColumnMap(header: table.header, format: chosen, path: path)
        let mapper = RowMapper(table: table, columns: columns)
        self.init(path: path, format: chosen, ignoredColumns: columns.ignoredColumns, rowCount: table.rows.count,
                  outcomes: table.rows.map(mapper.map))
    }

    /// Collects what a reader made of each record of a source with `rowCount` records.
    init(path: String, format: ImportFormat, ignoredColumns: [String] = [], rowCount: Int, outcomes: [EntryOutcome]) {
        var candidates: [ImportCandidate] = []
        var skipped: [ReportedRow] = []
        var failed: [ReportedRow] = []
        var notes: [ReportedRow] = []
        for outcome in outcomes {
            switch outcome {
            case .entry(let entry):
                for mapped in EntryMapper.map(entry) {
                    switch mapped {
                    case .candidate(let candidate, let rowNotes):
                        candidates.append(candidate)
                        notes += rowNotes
                    case .skipped(let reported): skipped.append(reported)
                    case .failed(let reported): failed.append(reported)
                    }
                }
            case .skipped(let reported): skipped.append(reported)
            case .failed(let reported): failed.append(reported)
            }
        }
        self.path = path
        self.format = format
        self.ignoredColumns = ignoredColumns
        self.rowCount = rowCount
        self.candidates = candidates
        self.skipped = skipped
        self.failed = failed
        self.notes = notes
    }
}
