import Foundation
import KeyshelfCrypto

/// Reads Bitwarden's unencrypted JSON export (`bw export --format json`, the
/// web vault's "File format: .json") into `ImportEntry`s (issue 17 item 4).
///
/// - `items[]` of `type` 1 (login): every `login.uris[].uri` is a server of
///   the account; `login.username`, `login.password`, `login.totp`, `notes`,
///   `name`; `folderId` names a `folders[]` entry, kept in the label;
///   `creationDate` is kept.
/// - Custom `fields[]` are appended to the notes, one `NAME: VALUE` line each
///   (hidden fields too: keyshelf has no hidden attribute, and dropping them would lose data).
/// - Secure notes (2), cards (3), identities (4) and SSH keys (5) are
///   skipped and reported: they are not web logins.
/// - A file that is not UTF-8 (or holds a raw NUL byte) is refused as a whole.
/// - An encrypted export (`"encrypted": true`, account- or password-protected)
///   is refused as a whole, naming the export option to use.
enum BitwardenJSONReader {
    static func read(_ bytes: UnsafeRawBufferPointer, path: String) throws -> ImportSource {
        // RFC 8259 JSON is UTF-8; decoding it leniently would silently turn a bad name into U+FFFD.
        if let line = CSVReader.firstInvalidLine(bytes) { throw TransferError.notUTF8(path: path, line: line) }
        let document: JSONDocument
        do {
            document = try JSONDocument(parsing: bytes)
        } catch let error as JSONDocument.SyntaxError {
            throw TransferError.malformedJSON(path: path, line: error.line, reason: error.reason)
        }
        let root = document.root
        if case .bool(true)? = root["encrypted"] {
            throw TransferError.encryptedExport(path: path)
        }
        guard case .object = root, case .array? = root["items"] else {
            throw TransferError.unsupportedSource(path: path, what: "JSON but not a Bitwarden export (no \"items\" array)",
                                                  hint: "keyshelf reads Bitwarden's unencrypted JSON export and CSV files")
        }
        var folders: [String: String] = [:]
        for folder in root["folders"]?.elements ?? [] {
            if let id = document.string(folder["id"]), let name = document.string(folder["name"]) { folders[id] = name }
        }
        let items = root["items"]!.elements
        let outcomes = items.enumerated().map { index, item in
            outcome(item, number: index + 1, document: document, folders: folders)
        }
        return ImportSource(path: path, format: .bitwardenJSON, rowCount: items.count, outcomes: outcomes)
    }

    static let typeNames = [2: "secure note", 3: "card", 4: "identity", 5: "SSH key"]

    private static func outcome(_ item: JSONDocument.Value, number: Int, document: JSONDocument,
                                folders: [String: String]) -> EntryOutcome {
        var line = 0
        if case .object(_, let offset) = item { line = document.line(at: offset) }
        let position = RowPosition(row: number, line: line, noun: "item")
        let name = document.string(item["name"]) ?? ""
        let login = item["login"]
        guard case .number(let type)? = item["type"], type == 1, let login else {
            var kind = "untyped item"
            if case .number(let type)? = item["type"] {
                // Any JSON number may arrive (1e999, -9.3e18, 1.5): only an exact Int is looked up.
                if let code = Int(exactly: type) { kind = "\(typeNames[code] ?? "type \(code)") item" } else { kind = "item of an unknown type" }
            }
            return .skipped(ReportedRow(position: position, server: "", account: "",
                                        reason: "Bitwarden \(kind), not a web login", title: name))
        }
        var notes = document.string(item["notes"]) ?? ""
        for field in item["fields"]?.elements ?? [] {
            let fieldName = document.string(field["name"]) ?? ""
            let value = document.string(field["value"]) ?? ""
            if fieldName.isEmpty && value.isEmpty { continue }
            notes += (notes.isEmpty ? "" : "\n") + "\(fieldName): \(value)"
        }
        let uris = login["uris"]?.elements.compactMap { document.string($0["uri"]) } ?? []
        let folder = document.string(item["folderId"]).flatMap { folders[$0] } ?? ""
        return .entry(ImportEntry(
            position: position, uris: uris, account: document.string(login["username"]) ?? "",
            password: document.secret(login["password"]) ?? Secret(utf8: ""),
            title: name, folder: folder, notes: notes, otpauth: document.string(login["totp"]) ?? "",
            creationDate: document.string(item["creationDate"]).flatMap(parseDate)))
    }

    /// Bitwarden's `2024-01-02T03:04:05.000Z` (fractional seconds optional).
    static func parseDate(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.date(from: text)
    }
}
