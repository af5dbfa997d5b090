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
    /// Record number counting the header as row 1, as a spreadsheet shows it.
    public let row: Int
    /// 1-based physical line where the record starts, as a text editor shows it.
    public let line: Int

    public init(row: Int, line: Int) {
        self.row = row
        self.line = line
    }

    /// "row 4 (line 5)".
    public var description: String { "row \(row) (line \(line))" }
}
