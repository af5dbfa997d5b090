import KeyshelfCredentials
import KeyshelfCrypto

/// Turns one CSV row into an `ImportCandidate`, or says why it is skipped or failed.
///
/// The mapping (documented for users in docs/import.md):
/// - URL → `ServerName` (IDN to A-label, default port folded, user info,
///   query and fragment dropped; dropped user info is noted in the report) and `path` (kept as written, "" for "/").
///   A Bitwarden `login_uri` holding several URIs uses the first http(s) one.
/// - `android://…` / `androidapp://…` entries, other non-web schemes
///   (`chrome://`, `ftp://`), Bitwarden items whose type is not `login` and
///   LastPass secure notes (`http://sn`) are **skipped**: they are not web logins.
/// - No URL, a URL that does not normalise, no user name (an empty account is
///   `errSecParam` in the Keychain model), no password, or a row whose field
///   count differs from the header's → **failed**.
/// - Notes → `comment`; title → `label`; a TOTP column holding an
///   `otpauth://` URI is kept as is, a bare secret becomes
///   `otpauth://totp/SERVER:ACCOUNT?secret=…&issuer=SERVER`.
struct RowMapper {
    let table: CSVTable
    let columns: ColumnMap

    enum Outcome {
        /// A row to import; `note` says what of it was left out (the URL's user info).
        case candidate(ImportCandidate, note: ReportedRow?)
        case skipped(ReportedRow)
        case failed(ReportedRow)
    }

    func map(_ row: CSVTable.Row) -> Outcome {
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
        guard let chosen = Self.webURL(in: url, bitwarden: columns.format == .bitwarden) else {
            return .failed(report("", "no URL (server)"))
        }
        if let scheme = Self.scheme(of: chosen), scheme != "http", scheme != "https" {
            let what = scheme.hasPrefix("android") ? "Android app entry (\(scheme)://…)" : "\(scheme):// entry"
            return .skipped(report(ServerURL.withoutUserInfo(chosen), "\(what), not a web login"))
        }
        let server: ServerName
        let parts: ServerURL
        do {
            parts = try ServerURL(parsing: chosen)
            server = try ServerName(parts, input: chosen)
        } catch let error as ServerNameError {
            return .failed(report(ServerURL.withoutUserInfo(chosen), "URL \(error.reason)"))
        } catch {
            return .failed(report(ServerURL.withoutUserInfo(chosen), "URL not understood"))
        }
        if account.isEmpty {
            return .failed(report(server.display, "no user name"))
        }
        guard let passwordColumn = columns.index(of: .password) else {
            return .failed(report(server.display, "no password"))
        }
        let password = table.secret(row, passwordColumn)
        if password.byteCount == 0 {
            return .failed(report(server.display, "no password"))
        }
        let title = text(row, .title).trimmingSpaces()
        // Issue 11 item 8: said in the report, never quoting the user info itself.
        let note = parts.userInfo.map { _ in
            report(server.display, parts.hasPassword ? "the URL's user info (a user name and a password, not shown) was dropped"
                                                     : "the URL's user info (a user name) was dropped")
        }
        return .candidate(ImportCandidate(
            position: position, server: server, path: Self.path(of: chosen), account: account, password: password,
            label: title.isEmpty ? server.display : title,
            comment: text(row, .notes),
            otpauth: Self.otpauth(text(row, .otpauth).trimmingSpaces(), server: server, account: account)), note: note)
    }

    private func text(_ row: CSVTable.Row, _ role: ImportFormat.Role) -> String {
        columns.index(of: role).map { table.string(row, $0) } ?? ""
    }

    /// The URL to use: the field itself, or for Bitwarden (which joins several
    /// URIs with commas) the first http(s) one, else the first one.
    static func webURL(in field: String, bitwarden: Bool) -> String? {
        guard bitwarden else { return field.isEmpty ? nil : field }
        let uris = field.split(separator: ",").map { String($0).trimmingSpaces() }.filter { !$0.isEmpty }
        return uris.first { uri in scheme(of: uri).map { $0 == "http" || $0 == "https" } ?? true } ?? uris.first
    }

    /// The lower-case scheme of `url` ("android", "https"): the text before a
    /// first ":" that is followed by "//"; nil when there is none.
    static func scheme(of url: String) -> String? {
        schemeEnd(of: url).map { url[..<$0].lowercased() }
    }

    /// The index of the "://" ending `url`'s scheme, if it has one.
    private static func schemeEnd(of url: String) -> String.Index? {
        guard let colon = url.firstIndex(of: ":"), colon != url.startIndex, url[colon...].hasPrefix("://") else { return nil }
        return colon
    }

    /// The path of `url` as written (`/login`): from the end of the authority
    /// to the query or fragment; "" when that is empty or "/".
    static func path(of url: String) -> String {
        let authorityStart = schemeEnd(of: url).map { url.index($0, offsetBy: 3) } ?? url.startIndex
        guard let start = url[authorityStart...].firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) else { return "" }
        let end = url[start...].firstIndex(where: { $0 == "?" || $0 == "#" }) ?? url.endIndex
        let path = String(url[start..<end])
        return path == "/" ? "" : path
    }

    /// `value` when it is an `otpauth://` URI; a bare secret wrapped in one; "" for "".
    static func otpauth(_ value: String, server: ServerName, account: String) -> String {
        guard !value.isEmpty else { return "" }
        if value.lowercased().hasPrefix("otpauth://") { return value }
        let secret = value.filter { $0 != " " }.uppercased()
        let label = "\(server.host):\(account)".addingPercentEncoding(allowed: Self.unreserved)
        let issuer = server.host.addingPercentEncoding(allowed: Self.unreserved)
        return "otpauth://totp/\(label)?secret=\(secret.addingPercentEncoding(allowed: Self.unreserved))&issuer=\(issuer)"
    }

    private static let unreserved = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~".utf8)
}

extension String {
    /// Percent-encodes every UTF-8 byte outside `allowed` (RFC 3986).
    func addingPercentEncoding(allowed: Set<UInt8>) -> String {
        var out = ""
        for byte in utf8 {
            if allowed.contains(byte) {
                out.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                out += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
            }
        }
        return out
    }

    private func leftPadded(to width: Int) -> String {
        String(repeating: "0", count: max(0, width - count)) + self
    }
}
