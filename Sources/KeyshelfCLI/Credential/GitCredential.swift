import Foundation
import KeyshelfCrypto

/// One credential description in git's credential protocol
/// (git-credential(1), "INPUT/OUTPUT FORMAT"): `key=value` lines ended by a
/// blank line or end of input. Unknown keys (`capability[]`, `wwwauth[]`,
/// `password_expiry_utc`, …) are ignored, as the protocol asks.
struct GitCredential {
    var `protocol`: String?
    var host: String?
    var path: String?
    var username: String?
    /// Kept in secure memory as soon as it is read.
    var password: Secret?

    /// "https://host[:port]" for the server name, or nil without a host.
    var serverURL: String? {
        guard let host, !host.isEmpty else { return nil }
        return "\(`protocol` ?? "https")://\(host)"
    }

    /// Reads the description from `fd` (standard input in a helper).
    /// - Throws: `CLIError` for a read error or a line over the size limit.
    static func read(fd: Int32) throws(CLIError) -> GitCredential {
        var credential = GitCredential()
        while let line = try LineReader.readLine(fd: fd, source: "standard input") {
            if line.byteCount == 0 { break }
            guard let equals = line.withUnsafeBytes({ $0.firstIndex(of: UInt8(ascii: "=")) }) else { continue }
            let key = line.withUnsafeBytes { String(decoding: $0[..<equals], as: UTF8.self) }
            if key == "password" {
                credential.password = line.withUnsafeBytes { Secret(SecureBytes(copying: $0[(equals + 1)...])) }
                continue
            }
            let value = line.withUnsafeBytes { String(decoding: $0[(equals + 1)...], as: UTF8.self) }
            switch key {
            case "protocol": credential.protocol = value
            case "host": credential.host = value
            case "path": credential.path = value
            case "username": credential.username = value
            case "url": credential.apply(url: value)
            default: break
            }
        }
        return credential
    }

    /// Splits `url=` into its parts (git sends it only when asked to; a
    /// caller of `git credential` may send it directly).
    private mutating func apply(url: String) {
        guard let schemeEnd = url.range(of: "://") else { return }
        `protocol` = String(url[..<schemeEnd.lowerBound])
        var rest = Substring(url[schemeEnd.upperBound...])
        if let slash = rest.firstIndex(of: "/") {
            path = String(rest[rest.index(after: slash)...])
            rest = rest[..<slash]
        }
        if let at = rest.lastIndex(of: "@") {
            let userInfo = rest[..<at]
            rest = rest[rest.index(after: at)...]
            let user = userInfo.split(separator: ":", maxSplits: 1).first.map(String.init) ?? ""
            if !user.isEmpty { username = user.removingPercentEncoding ?? user }
        }
        host = String(rest)
    }

    /// Whether git can carry `value` in one `key=value` line.
    static func canCarry(_ value: String) -> Bool {
        !value.utf8.contains(0x0A) && !value.utf8.contains(0)
    }

    /// Whether git can carry the secret in one `key=value` line.
    static func canCarry(_ secret: Secret) -> Bool {
        !secret.contains(byte: 0x0A) && !secret.contains(byte: 0)
    }

    /// The answer to `get`: `username=` and `password=` lines, built in a
    /// buffer the caller writes and wipes. Nil when a value cannot be carried.
    static func answer(username: String, password: Secret) -> [UInt8]? {
        guard canCarry(username), canCarry(password) else { return nil }
        var bytes = Array("username=\(username)\npassword=".utf8)
        password.withUnsafeBytes { bytes.append(contentsOf: $0) }
        bytes.append(0x0A)
        return bytes
    }
}
