import KeyshelfCredentials
import KeyshelfCrypto

/// Turns one CSV row into an `ImportEntry`, or says why it is skipped or
/// failed; `EntryMapper` then maps the entry's URIs (docs/import.md).
///
/// - A blank row is skipped; a row whose field count differs from the
///   header's fails (usually an unquoted comma: the columns cannot be trusted).
/// - Bitwarden items whose type is not `login` and LastPass secure notes
///   (`http://sn`) are **skipped**: they are not web logins.
/// - Bitwarden's `login_uri` may hold several URIs separated by commas: each is one URI.
/// - Bitwarden's `fields` column (custom fields) and Firefox's `httpRealm`
///   (`HTTP realm: …`) are appended to the notes.
/// - Firefox rows may have no user name (password-only forms, HTTP
///   authentication): they import with the account `ImportEntry.noUserName`.
/// - The folder column (Bitwarden `folder`, LastPass `grouping`, KeePassXC
///   `Group` without its root group) is kept in the label (`LabelPath`).
struct RowMapper {
    let table: CSVTable
    let columns: ColumnMap

    func map(_ row: CSVTable.Row) -> EntryOutcome {
        let position = RowPosition(row: row.number, line: row.line)
        let url = text(row, .url).trimmingSpaces()
        let account = text(row, .account)
        let report = { (server: String, reason: String) in
            ReportedRow(position: position, server: server, account: account, reason: reason)
        }
        if table.isBlank(row) {
            return .skipped(report("", "empty row"))
        }
        if row.fieldCount != table.header.count {
            return .failed(report("", "has \(row.fieldCount) fields but the header has \(table.header.count)"))
        }
        if columns.format == .bitwarden {
            let type = text(row, .itemType).trimmingSpaces().lowercased()
            if type != "login" {
                return .skipped(report(text(row, .title), "Bitwarden \(type.isEmpty ? "untyped" : type) item, not a web login"))
            }
        }
        if columns.format == .lastpass, url.lowercased() == "http://sn" {
            return .skipped(report(text(row, .title), "LastPass secure note, not a web login"))
        }
        let uris = columns.format == .bitwarden ? url.split(separator: ",").map(String.init) : [url]
        return .entry(ImportEntry(
            position: position, uris: uris, account: account,
            password: columns.index(of: .password).map { table.secret(row, $0) } ?? Secret(utf8: ""),
            title: text(row, .title), folder: folder(row), notes: notes(row), otpauth: text(row, .otpauth),
            allowsEmptyAccount: columns.format == .firefox))
    }

    /// The notes column, then Bitwarden's custom fields on lines of their own.
    private func notes(_ row: CSVTable.Row) -> String {
        var notes = text(row, .notes)
        let realm = text(row, .realm).trimmingSpaces()
        for extra in [text(row, .fields).trimmingSpaces(), realm.isEmpty ? "" : "HTTP realm: \(realm)"] where !extra.isEmpty {
            notes += (notes.isEmpty ? "" : "\n") + extra
        }
        return notes
    }

    private func folder(_ row: CSVTable.Row) -> String {
        let value = text(row, .folder).trimmingSpaces()
        guard columns.format == .keepassxc else { return value }
        // KeePassXC writes the whole group path, starting with the root group ("Root/Work").
        return value.split(separator: "/", maxSplits: 1).dropFirst().first.map(String.init) ?? ""
    }

    private func text(_ row: CSVTable.Row, _ role: ImportFormat.Role) -> String {
        columns.index(of: role).map { table.string(row, $0) } ?? ""
    }
}
