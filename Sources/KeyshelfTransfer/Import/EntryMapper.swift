import KeyshelfCredentials
import KeyshelfCrypto

/// Turns an `ImportEntry` into `ImportCandidate`s, one per web URI, or says
/// why it is skipped or failed (docs/import.md, "Mapping a row").
///
/// - Every http(s) URI → `ServerName` (IDN to A-label, default port folded,
///   user info, query and fragment dropped; dropped user info is noted) and
///   `path` (kept as written, "" for "/"). URIs that give the same server,
///   scheme, port are written once. A URI without scheme is a host name.
/// - Android app entries (`android://HASH@PACKAGE/`, `androidapp://PACKAGE`)
///   are kept as app logins: an internet password whose protocol is
///   `androidapp` and whose server is the package name.
/// - Other schemes (`chrome://`, `ftp://`) are skipped with a reason; the
///   entry's web URIs are still imported.
/// - Values holding HTML entities (`&amp;`) are kept as written and noted.
/// - No URI, a URL that does not normalise, no user name (an empty account is
///   `errSecParam` in the Keychain model), no password, a password that is
///   not UTF-8 text without NUL (`PasswordText`) → **failed**.
/// - Title → `label` (the server's display form when empty), joined with
///   the folder as `FOLDER/TITLE` (`LabelPath`); notes → `comment`; a TOTP
///   value holding an `otpauth://` URI is kept as is, a bare secret becomes
///   `otpauth://totp/SERVER:ACCOUNT?secret=…&issuer=SERVER`.
enum EntryMapper {
    /// A mapped entry's parts, in order.
    enum Outcome {
        /// A row to import; `notes` say what of it was left out or looks wrong (user info, HTML escapes).
        case candidate(ImportCandidate, notes: [ReportedRow])
        case skipped(ReportedRow)
        case failed(ReportedRow)
    }

    /// The reason of a row whose password is not UTF-8 text or holds a NUL byte (the CSV reader's wording).
    static let passwordNotText = "password not UTF-8 text, or a NUL byte"

    /// The scheme an Android app login is stored under (Bitwarden's form): server = package name.
    static let appScheme = ServerName.appScheme

    static func map(_ entry: ImportEntry) -> [Outcome] {
        let account = entry.account.isEmpty && entry.allowsEmptyAccount ? ImportEntry.noUserName : entry.account
        let report = { (server: String, reason: String) in
            ReportedRow(position: entry.position, server: server, account: account, reason: reason)
        }
        let uris = entry.uris.map { $0.trimmingSpaces() }.filter { !$0.isEmpty }
        guard !uris.isEmpty else { return [.failed(report(entry.title, "no URL (server)"))] }
        var outcomes: [Outcome] = []
        var servers: [(server: ServerName, userInfo: ServerURL?, path: String)] = []
        for uri in uris {
            let scheme = scheme(of: uri)
            if scheme == "android" || scheme == appScheme {
                guard let package = androidPackage(uri) else {
                    outcomes.append(.failed(report(ServerURL.withoutUserInfo(uri), "Android app entry without a package name")))
                    continue
                }
                let server = ServerName(host: package, port: 0, scheme: appScheme)
                if !servers.contains(where: { $0.server == server }) { servers.append((server, nil, "")) }
                continue
            }
            if let scheme, scheme != "http", scheme != "https" {
                outcomes.append(.skipped(report(ServerURL.withoutUserInfo(uri), "\(scheme):// entry, not a web login")))
                continue
            }
            do {
                let parts = try ServerURL(parsing: uri)
                let server = try ServerName(parts, input: uri)
                if !servers.contains(where: { $0.server == server }) { servers.append((server, parts, path(of: uri))) }
            } catch let error as ServerNameError {
                outcomes.append(.failed(report(ServerURL.withoutUserInfo(uri), "URL \(error.reason)")))
            } catch {
                outcomes.append(.failed(report(ServerURL.withoutUserInfo(uri), "URL not understood")))
            }
        }
        let escaped = htmlEscapedFields(entry)
        for (server, parts, path) in servers {
            if account.isEmpty {
                outcomes.append(.failed(report(server.display, "no user name")))
                continue
            }
            if entry.password.byteCount == 0 {
                outcomes.append(.failed(report(server.display, "no password")))
                continue
            }
            // The rule add and export apply (`PasswordText`): a password that export could not write back is not stored.
            if !PasswordText.isValid(entry.password) {
                outcomes.append(.failed(report(server.display, Self.passwordNotText)))
                continue
            }
            var notes: [ReportedRow] = []
            // Issue 11 item 8: said in the report, never quoting the user info itself.
            if let parts, parts.userInfo != nil {
                notes.append(report(server.display, parts.hasPassword ? "the URL's user info (a user name and a password, not shown) was dropped"
                                                                      : "the URL's user info (a user name) was dropped"))
            }
            if !escaped.isEmpty {
                notes.append(report(server.display, "the \(escaped.joined(separator: ", ")) look(s) HTML-escaped (&amp;, &lt;, …); "
                    + "kept as written: check against the original"))
            }
            let title = entry.title.trimmingSpaces()
            outcomes.append(.candidate(ImportCandidate(
                position: entry.position, server: server, path: path, account: account,
                password: entry.password,
                label: LabelPath.label(folder: entry.folder, title: title.isEmpty ? server.display : title),
                comment: entry.notes,
                otpauth: otpauth(entry.otpauth.trimmingSpaces(), server: server, account: account),
                creationDate: entry.creationDate), notes: notes))
        }
        return outcomes
    }

    /// The package of `android://HASH@com.example.app/` (Chrome, Firefox) or
    /// `androidapp://com.example.app` (Bitwarden); nil when it is not a Java package name.
    static func androidPackage(_ uri: String) -> String? {
        guard let end = schemeEnd(of: uri) else { return nil }
        var rest = uri[uri.index(end, offsetBy: 3)...]
        if let at = rest.lastIndex(of: "@") { rest = rest[rest.index(after: at)...] }
        let package = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        return ServerName.isAppPackage(package) ? String(package) : nil
    }

    /// The entities that mark a value written HTML-escaped (LastPass did so).
    static let htmlEntities = ["&amp;", "&lt;", "&gt;", "&quot;", "&#39;", "&#x27;", "&apos;"]

    /// Names of the entry's fields that hold an HTML entity; the password is
    /// searched in sodium memory and only named, never shown.
    static func htmlEscapedFields(_ entry: ImportEntry) -> [String] {
        var fields: [String] = []
        if htmlEntities.contains(where: entry.account.contains) { fields.append("user name") }
        if entry.password.withUnsafeBytes({ bytes in htmlEntities.contains { contains(bytes, Array($0.utf8)) } }) {
            fields.append("password")
        }
        if htmlEntities.contains(where: entry.title.contains) { fields.append("title") }
        if htmlEntities.contains(where: entry.notes.contains) { fields.append("notes") }
        return fields
    }

    private static func contains(_ bytes: UnsafeRawBufferPointer, _ needle: [UInt8]) -> Bool {
        guard bytes.count >= needle.count else { return false }
        return (0...(bytes.count - needle.count)).contains { i in (0..<needle.count).allSatisfy { bytes[i + $0] == needle[$0] } }
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

    /// `value` when it is an `otpauth://` or `steam://` URI; a bare secret wrapped in one; "" for "".
    static func otpauth(_ value: String, server: ServerName, account: String) -> String {
        guard !value.isEmpty else { return "" }
        let lowered = value.lowercased()
        if lowered.hasPrefix("otpauth://") || lowered.hasPrefix("steam://") { return value }
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
