import Foundation
import KeyshelfCredentials
import KeyshelfCrypto

/// One credential description in git's credential protocol
/// (git-credential(1), "INPUT/OUTPUT FORMAT"): `key=value` lines ended by a
/// blank line or end of input. Unknown keys (`capability[]`, `wwwauth[]`, …)
/// are ignored, as the protocol asks. The line rules are in docs/cli.md
/// ("git credential helper").
struct GitCredential {
    var `protocol`: String?
    var host: String?
    var path: String?
    var username: String?
    /// Kept in secure memory as soon as it is read.
    var password: Secret?
    /// `password_expiry_utc` and `oauth_refresh_token` (the token in secure memory).
    var oauth = OAuthAttributes()

    /// The keys whose values keyshelf reads; a NUL or CR in one of them is refused.
    private static let knownKeys: Set<String> = [
        "protocol", "host", "path", "username", "password", "url", "password_expiry_utc", "oauth_refresh_token",
    ]

    /// Reads the description from `fd` (standard input in a helper), in blocks.
    ///
    /// A line ending in CR LF counts as ending in LF (one CR dropped, as git's
    /// own `strbuf_getline`); any other CR, or a NUL, in a value keyshelf
    /// reads is refused, so such a value is never stored.
    /// - Throws: `CLIError` (usage) for a line over 64 KiB, a NUL or CR in a
    ///   value, a `url=` that is not a well-formed URL, or a
    ///   `password_expiry_utc=` that is not a number of seconds; (failure) for a read error.
    static func read(fd: Int32) throws(CLIError) -> GitCredential {
        var credential = GitCredential()
        var reader = BlockLineReader(fd: fd, source: "standard input")
        while let line = try reader.readLine() {
            let length = line.withUnsafeBytes { $0.last == UInt8(ascii: "\r") ? $0.count - 1 : $0.count }
            if length == 0 { break }
            guard let equals = line.withUnsafeBytes({ $0[..<length].firstIndex(of: UInt8(ascii: "=")) }) else { continue }
            let key = line.withUnsafeBytes { String(decoding: $0[..<equals], as: UTF8.self) }
            guard knownKeys.contains(key) else { continue }
            let value = line.withUnsafeBytes { Secret(SecureBytes(copying: $0[(equals + 1)..<length])) }
            if value.contains(byte: 0) || value.contains(byte: 0x0D) {
                throw CLIError(.usage, "the value of \(key)= contains a \(value.contains(byte: 0) ? "NUL byte" : "carriage return"), which git cannot carry; nothing was saved")
            }
            if key == "password" { credential.password = value; continue }
            if key == "oauth_refresh_token" { credential.oauth.refreshToken = value; continue }
            let text = value.unsafeString() ?? ""
            switch key {
            case "password_expiry_utc":
                guard let seconds = UInt64(text) else {
                    throw CLIError(.usage, "password_expiry_utc=\(InertText.quoted(text)) is not a number of seconds since 1970; nothing was saved")
                }
                credential.oauth.passwordExpiryUTC = seconds
            case "protocol": credential.protocol = text
            case "host": credential.host = text
            case "path": credential.path = text
            case "username": credential.username = text
            default: try credential.apply(url: text)
            }
        }
        return credential
    }

    /// Splits `url=` by `ServerURL`'s rules, the ones git itself uses for
    /// the authority (so both read the same host). A URL two readers could
    /// take for two hosts is refused.
    private mutating func apply(url: String) throws(CLIError) {
        let parts: ServerURL
        do {
            parts = try ServerURL(parsing: url)
        } catch {
            throw CLIError(.usage, "url=: " + ServerNameError(input: ServerURL.withoutUserInfo(url, mark: "…@"), reason: error.reason).description)
        }
        `protocol` = parts.scheme
        host = parts.port.map { "\(parts.host):\($0)" } ?? String(parts.host)
        path = parts.rest.isEmpty ? nil : String(parts.rest.dropFirst())
        if let user = parts.user { username = user }
        if parts.hasPassword, let info = parts.userInfo, let colon = info.firstIndex(of: ":") {
            password = Secret(utf8: ServerURL.percentDecoded(info[info.index(after: colon)...]))
        }
    }

    /// The server named by `protocol=` and `host=`; nil without a host.
    /// - Throws: `CLIError` (usage) for a protocol that is not a Keychain
    ///   protocol (`ServerName.keychainProtocols`), or a host that is not a
    ///   host name, `host:port` or `[ipv6]:port`.
    func server() throws(CLIError) -> ServerName? {
        guard let host, !host.isEmpty else { return nil }
        let scheme = (`protocol` ?? "https").lowercased()
        guard ServerName.keychainProtocols[scheme] != nil else {
            throw CLIError(.usage, "the protocol \(InertText.quoted(scheme)) is not one keyshelf stores (\(ServerName.keychainProtocols.keys.sorted().joined(separator: ", ")))")
        }
        do {
            let parts = try ServerURL(parsing: "\(scheme)://\(host)")
            guard parts.userInfo == nil, parts.rest.isEmpty else {
                throw ServerNameError(input: host, reason: "is not a host name or host:port")
            }
            return try ServerName(parts, input: host, schemes: Set(ServerName.keychainProtocols.keys))
        } catch let error as ServerNameError {
            throw CLIError(.usage, "host=: \(error)")
        } catch {
            throw CLIError(.usage, "host=: \(error)")
        }
    }

    /// Whether git can carry `value` in one `key=value` line.
    static func canCarry(_ value: String) -> Bool {
        !value.utf8.contains(where: { $0 == 0x0A || $0 == 0x0D || $0 == 0 })
    }

    /// Whether git can carry the secret in one `key=value` line.
    static func canCarry(_ secret: Secret) -> Bool {
        !secret.contains(byte: 0x0A) && !secret.contains(byte: 0x0D) && !secret.contains(byte: 0)
    }

    /// The answer to `get`: `username=`, `password=`, `password_expiry_utc=`
    /// and `oauth_refresh_token=` lines, built in a buffer the caller writes
    /// and wipes. A password expired at `now` is left out with its expiry
    /// (git would drop it), the refresh token still sent. Nil when a value
    /// cannot be carried.
    static func answer(username: String, password: Secret, oauth: OAuthAttributes = OAuthAttributes(), now: Date = Date()) -> [UInt8]? {
        guard canCarry(username), canCarry(password), oauth.refreshToken.map(canCarry) ?? true else { return nil }
        var bytes = Array("username=\(username)\n".utf8)
        if !oauth.isExpired(at: now) {
            append("password", password, to: &bytes)
            if let expiry = oauth.passwordExpiryUTC { bytes += Array("password_expiry_utc=\(expiry)\n".utf8) }
        }
        if let token = oauth.refreshToken { append("oauth_refresh_token", token, to: &bytes) }
        return bytes
    }

    private static func append(_ key: String, _ secret: Secret, to bytes: inout [UInt8]) {
        bytes += Array("\(key)=".utf8)
        secret.withUnsafeBytes { bytes.append(contentsOf: $0) }
        bytes.append(0x0A)
    }
}
