import Foundation
import KeyshelfCrypto

/// One login read from any source (a CSV row, a Bitwarden JSON item, a KDBX
/// entry, a pass file), before its URIs are normalised: what every reader
/// hands to `EntryMapper`.
struct ImportEntry {
    /// Where the entry is in the source.
    let position: RowPosition
    /// Its URIs as written, in order; every web one becomes a server of the account.
    var uris: [String]
    /// The user name.
    var account: String
    /// The password, in sodium memory.
    var password: Secret
    /// Title or name; "" when the source has none.
    var title: String = ""
    /// Folder or group path ("Work/Dev"); "" when none. Kept in the label (`LabelPath`).
    var folder: String = ""
    /// Notes, with anything else kept for the user (custom fields, realms) appended.
    var notes: String = ""
    /// A TOTP value: an `otpauth://` URI, `steam://SECRET` or a bare base32 secret; "" for none.
    var otpauth: String = ""
    /// When the source says the entry was created.
    var creationDate: Date?
    /// Whether an empty user name is a login of its own (Firefox saves
    /// password-only forms and HTTP authentication so) rather than a mistake.
    var allowsEmptyAccount = false

    /// The account given to a login saved without a user name: keyshelf's
    /// accounts are never empty (`errSecParam`); export writes it back as "".
    static let noUserName = "(no user name)"
}

/// What a reader made of one record of its source.
enum EntryOutcome {
    /// A login to map (`EntryMapper`).
    case entry(ImportEntry)
    /// Not imported on purpose (a secure note, an empty row), with the reason.
    case skipped(ReportedRow)
    /// Cannot be imported (bad field count), with the reason.
    case failed(ReportedRow)
}
