import KeyshelfCredentials
import KeyshelfCrypto

/// Turns an `ImportEntry` into `ImportCandidate`s, one per web URI, or says
/// why it is skipped or failed (docs/import.md, "Mapping a row").
///
/// - Every http(s) URI → `ServerName` (IDN to A-label, default port folded,
///   user info, query and fragment dropped; dropped user info is noted) and
///   `path` (kept as written, "" for "/"). URIs that give the same server,
///   scheme, port are written once. A URI without scheme is a host name.
/// - Other schemes (`chrome://`, `ftp://`, Android apps) are skipped with a
///   reason; the entry's web URIs are still imported.
/// - No URI, a URL that does not normalise, no user name (an empty account is
///   `errSecParam` in the Keychain model), no password → **failed**.
/// - Title → `label` (the server's display form when empty), joined with
///   the folder as `FOLDER/TITLE` (`LabelPath`); notes → `comment`; a TOTP
///   value holding an `otpauth://` URI is kept as is, a bare secret becomes
///   `otpauth://totp/SERVER:ACCOUNT?secret=…&issuer=SERVER`.
enum EntryMapper {
    /// A mapped entry's parts, in order.
    enum Outcome {
        /// A row to import; `note` says what of it was left out (the URL's user info).
        case candidate(ImportCandidate, note: ReportedRow?)
        case skipped(ReportedRow)
        case failed(ReportedRow)
    }

    static func map(_ entry: ImportEntry) -> [Outcome] {
        let report = { (server: String, reason: String) in
            ReportedRow(position: entry.position, server: server, account: entry.account, reason: reason)
        }
        let uris = entry.uris.map { $0.trimmingSpaces() }.filter { !$0.isEmpty }
        guard !uris.isEmpty else { return [.failed(report(entry.title, "no URL (server)"))] }
        var outcomes: [Outcome] = []
        var servers: [(ServerName, ServerURL, String)] = []
        for uri in uris {
            if let scheme = scheme(of: uri), scheme != "http", scheme != "https" {
                let what = scheme.hasPrefix("android") ? "Android app entry (\(scheme)://…)" : "\(scheme):// entry"
                outcomes.append(.skipped(report(ServerURL.withoutUserInfo(uri), "\(what), not a web login")))
                continue
            }
            do {
                let parts = try ServerURL(parsing: uri)
                let server = try ServerName(parts, input: uri)
                if !servers.contains(where: { $0.0 == server }) { servers.append((server, parts, uri)) }
            } catch let error as ServerNameError {
                outcomes.append(.failed(report(ServerURL.withoutUserInfo(uri), "URL \(error.reason)")))
            } catch {
                outcomes.append(.failed(report(ServerURL.withoutUserInfo(uri), "URL not understood")))
            }
        }
        for (server, parts, uri) in servers {
            if entry.account.isEmpty {
                outcomes.append(.failed(report(server.display, "no user name")))
                continue
            }
            if entry.password.byteCount == 0 {
                outcomes.append(.failed(report(server.display, "no password")))
                continue
            }
            let title = entry.title.trimmingSpaces()
            // Issue 11 item 8: said in the report, never quoting the user info itself.
            let note = parts.userInfo.map { _ in
                report(server.display, parts.hasPassword ? "the URL's user info (a user name and a password, not shown) was dropped"
                                                         : "the URL's user info (a user name) was dropped")
            }
            outcomes.append(.candidate(ImportCandidate(
                position: entry.position, server: server, path: path(of: uri), account: entry.account,
                password: entry.password,
                label: LabelPath.label(folder: entry.folder, title: title.isEmpty ? server.display : title),
                comment: entry.notes,
                otpauth: otpauth(entry.otpauth.trimmingSpaces(), server: server, account: entry.account),
                creationDate: entry.creationDate), note: note))
        }
        return outcomes
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
