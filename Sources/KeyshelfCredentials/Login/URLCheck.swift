import Foundation
import KeyshelfCrypto

/// `login SERVER --check-url URL` (issue 18 item 5, DESIGN §4 step 4): tries
/// the credential against the site itself over HTTPS (`HTTPSFetch`, the same
/// trust options as `associate`): HTTP Basic by default, or a form POST of
/// `USERFIELD=account&PASSFIELD=password`. 2xx accepts; 401 and 403 refuse;
/// anything else (a redirect, which is never followed, or another status)
/// is an error, since it says neither.
///
/// The URL must be https and on the login's own host, so a credential is
/// never sent to another site.
public struct URLCheck: CredentialCheck, Sendable {
    public var url: String
    public var trust: AssociationTrust
    /// `(userField, passwordField)` for a form POST; nil for HTTP Basic.
    public var form: (user: String, password: String)?
    public var timeoutSeconds: Int

    public init(url: String, trust: AssociationTrust, form: (user: String, password: String)? = nil, timeoutSeconds: Int = 10) {
        self.url = url
        self.trust = trust
        self.form = form
        self.timeoutSeconds = timeoutSeconds
    }

    /// Checks that `url` is https and on `server`'s host and port.
    /// - Throws: `AssociationError.invalidDomain` saying why not.
    public func validate(for server: ServerName) throws(AssociationError) {
        guard url.lowercased().hasPrefix("https://"), let target = try? ServerName(parsing: url, schemes: ["https"]) else {
            throw AssociationError(.invalidDomain, "--check-url must be an https URL, not \(InertText.quoted(url))")
        }
        guard target.host == server.host, target.port == server.port else {
            throw AssociationError(.invalidDomain, "--check-url is on \(target.display), not \(server.display): a credential is only sent to its own site")
        }
    }

    public func accepts(server: ServerName, account: String, password: Secret) throws -> Bool {
        try validate(for: server)
        let fetch = HTTPSFetch(trust: trust, timeoutSeconds: timeoutSeconds, maximumBodyByteCount: 1 << 20)
        let response: HTTPSFetch.Response
        if let form {
            response = try fetch.send(url, credential: .form(Self.formBody(form, account: account, password: password)))
        } else {
            response = try fetch.send(url, credential: .basic(user: account, password: password))
        }
        switch response.status {
        case 200..<300: return true
        case 401, 403: return false
        case 300..<400:
            throw AssociationError(.refusedBySite, "\(url) answered a redirect (HTTP \(response.status)), which is not followed; give the URL that answers 2xx, 401 or 403")
        default:
            throw AssociationError(.refusedBySite, "\(url) answered HTTP \(response.status), which neither accepts nor refuses the credential")
        }
    }

    /// `user=ACCOUNT&pass=PASSWORD`, percent-encoded, built in sodium memory.
    static func formBody(_ form: (user: String, password: String), account: String, password: Secret) -> SecureBytes {
        let head = Array("\(encode(Array(form.user.utf8)))=\(encode(Array(account.utf8)))&\(encode(Array(form.password.utf8)))=".utf8)
        let secretLength = password.withUnsafeBytes { $0.reduce(0) { $0 + (isUnreserved($1) ? 1 : 3) } }
        let body = SecureBytes(byteCount: head.count + secretLength)
        body.withUnsafeMutableBytes { out in
            var i = 0
            for byte in head { out[i] = byte; i += 1 }
            password.withUnsafeBytes { input in
                let hex = Array("0123456789ABCDEF".utf8)
                for byte in input {
                    if isUnreserved(byte) {
                        out[i] = byte; i += 1
                    } else {
                        out[i] = UInt8(ascii: "%"); out[i + 1] = hex[Int(byte >> 4)]; out[i + 2] = hex[Int(byte & 15)]; i += 3
                    }
                }
            }
        }
        return body
    }

    private static func isUnreserved(_ b: UInt8) -> Bool {
        (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || b == 0x2D || b == 0x2E || b == 0x5F || b == 0x7E
    }

    private static func encode(_ bytes: [UInt8]) -> String {
        bytes.map { isUnreserved($0) ? String(UnicodeScalar($0)) : String(format: "%%%02X", $0) }.joined()
    }
}
