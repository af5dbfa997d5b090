import Foundation
import KeyshelfCredentials
import KeyshelfCrypto

/// One row of an import file that maps to a web login, ready to be stored.
public struct ImportCandidate: Sendable {
    /// Where the row is in the file.
    public let position: RowPosition
    /// The row's URL, normalised (DESIGN §1).
    public let server: ServerName
    /// The URL's path (`/login`), kept so that export writes the URL the user
    /// had; "" when it is empty or "/". Query and fragment are dropped.
    public let path: String
    /// The user name.
    public let account: String
    /// The password, still in the file's sodium-memory arena.
    public let password: Secret
    /// Title or name column; the server's display form when the file has none.
    public let label: String
    /// Notes column, as written in the file.
    public let comment: String
    /// An `otpauth://` URI from the TOTP column, or "".
    public let otpauth: String
    /// When the source says the login was created; nil when it does not (the import's time is used).
    public var creationDate: Date? = nil
}

/// Where a row sits in the file.
public struct RowPosition: Sendable, Equatable, Hashable, CustomStringConvertible {
    /// CSV: record number counting the header as row 1, as a spreadsheet shows it; other sources: the 1-based record number.
    public let row: Int
    /// 1-based physical line where the record starts, as a text editor shows it; 0 when the source has no lines.
    public let line: Int
    /// What a record is called in the source: "row" (CSV), "item" (Bitwarden JSON), "entry" (KDBX, pass).
    public let noun: String

    public init(row: Int, line: Int, noun: String = "row") {
        self.row = row
        self.line = line
        self.noun = noun
    }

    /// "row 4 (line 5)", "item 3 (line 40)", "entry 7".
    public var description: String { line > 0 ? "\(noun) \(row) (line \(line))" : "\(noun) \(row)" }
}
