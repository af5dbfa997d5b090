/// Why a file as a whole cannot be imported or exported. Nothing is written
/// to the vault when one of these is thrown (issue 5, "Safety").
///
/// Messages name the file and, where it helps, the 1-based line; they never
/// contain field values, which may be passwords.
public enum TransferError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The file could not be opened or read (`errno` text in `reason`).
    case unreadable(path: String, reason: String)
    /// The file is larger than `limit` bytes (`CSVReader.maxFileBytes`); nothing was read.
    case tooLarge(path: String, limit: Int)
    /// A field starting on `line` is larger than `limit` bytes (`CSVReader.maxFieldBytes`).
    case fieldTooLarge(path: String, line: Int, limit: Int)
    /// The record starting on `line` has more than `limit` fields (`CSVReader.maxColumns`).
    case tooManyColumns(path: String, line: Int, limit: Int)
    /// The record starting on `line` is one more than `limit` rows after the header (`CSVReader.maxRows`).
    case tooManyRows(path: String, line: Int, limit: Int)
    /// The file holds no record at all.
    case empty(path: String)
    /// A byte sequence that is not UTF-8 (or a NUL byte) on `line`.
    case notUTF8(path: String, line: Int)
    /// libcsv's strict mode rejected the quoting on `line` (e.g. a quote inside an unquoted field).
    case malformed(path: String, line: Int, reason: String)
    /// A quoted field opened on `line` is never closed: the file is truncated or damaged.
    case unterminatedQuote(path: String, line: Int)
    /// The header line matches none of the known formats (DESIGN §9).
    case unknownFormat(path: String, header: [String])
    /// The chosen format needs columns that the header lacks.
    case missingColumns(path: String, format: ImportFormat, columns: [String])
    /// A JSON file that is not valid JSON; `line` is where the parser stopped.
    case malformedJSON(path: String, line: Int, reason: String)
    /// An encrypted Bitwarden export: keyshelf reads only the unencrypted one.
    case encryptedExport(path: String)
    /// A KeePass database whose password is wrong (or which also needs a key file).
    case wrongSourcePassword(path: String)
    /// A KeePass database that fails its checks for another reason.
    case damagedDatabase(path: String, reason: String)
    /// A source keyshelf recognises but cannot read (`what` names it, `hint` says what to do).
    case unsupportedSource(path: String, what: String, hint: String)
    /// The export file could not be created or written.
    case unwritable(path: String, reason: String)

    public var description: String {
        switch self {
        case let .unreadable(path, reason):
            "cannot read \(path): \(reason)"
        case let .tooLarge(path, limit):
            "\(path) is larger than \(limit >> 20) MiB, more than any password export; nothing was imported"
        case let .fieldTooLarge(path, line, limit):
            "\(path) line \(line): a field starting here is larger than \(limit >> 20) MiB; nothing was imported"
        case let .tooManyColumns(path, line, limit):
            "\(path) line \(line): a record with more than \(limit) fields, more than any password export has columns; nothing was imported"
        case let .tooManyRows(path, line, limit):
            "\(path) line \(line): more than \(limit) rows after the header, more than keyshelf imports at once; "
                + "split the file and import the parts (nothing was imported)"
        case let .empty(path):
            "\(path) is empty: no header line"
        case let .notUTF8(path, line):
            "\(path) line \(line): not UTF-8 text, or a NUL byte; export the file again as UTF-8 text (nothing was imported)"
        case let .malformed(path, line, reason):
            "\(path) line \(line): malformed CSV (\(reason)); nothing was imported"
        case let .unterminatedQuote(path, line):
            "\(path) line \(line): a quoted field starting here is never closed; the file looks truncated (nothing was imported)"
        case let .unknownFormat(path, header):
            "\(path): unknown header line \"\(header.joined(separator: ","))\"; choose one with --format"
                + (header.count == 1 && header[0].contains("\t")
                    ? " (the fields look separated by tabs: save the file as CSV with commas or semicolons)" : "")
        case let .missingColumns(path, format, columns):
            "\(path): not a \(format.displayName) export, missing column(s) \(columns.joined(separator: ", "))"
        case let .malformedJSON(path, line, reason):
            "\(path) line \(line): malformed JSON (\(reason)); nothing was imported"
        case let .encryptedExport(path):
            "\(path) is an encrypted Bitwarden export, which keyshelf cannot read: export again choosing the file format "
                + "\"JSON\" (not \"JSON (Encrypted)\"), or run `bw export --format json`; nothing was imported"
        case let .wrongSourcePassword(path):
            "\(path): wrong password for this database, or it also needs a key file, which keyshelf does not read "
                + "(remove the key file in KeePassXC's Database Security, or export CSV); nothing was imported"
        case let .damagedDatabase(path, reason):
            "\(path) is a damaged KeePass database: \(reason); nothing was imported"
        case let .unsupportedSource(path, what, hint):
            "\(path) is \(what): \(hint); nothing was imported"
        case let .unwritable(path, reason):
            "cannot write \(path): \(reason)"
        }
    }
}
