import Foundation
import KeyshelfCrypto

/// A one-time-code secret and its parameters, from every form people bring
/// (docs/otp.md): `otpauth://totp/…` and `otpauth://hotp/…` (Google
/// Authenticator's key-URI format), `steam://SECRET`, `encoder=steam`, and a
/// bare base32 secret.
///
/// The key is decoded into sodium memory; the stored form is the `otpauth://`
/// URI string of `Item.otpauth` (`uri`).
public struct OTPAuth: Sendable, Equatable {
    /// `totp` (time-based, RFC 6238) or `hotp` (counter-based, RFC 4226).
    public enum Kind: String, Sendable { case totp, hotp }

    public var kind: Kind
    /// The decoded secret key (bytes).
    public var key: Secret
    public var hash: OTPHash
    /// 6–10 digits; 5 characters for Steam.
    public var digits: Int
    /// TOTP time step in seconds (default 30).
    public var period: Int
    /// HOTP: the counter of the next code (only grows).
    public var counter: UInt64
    /// The issuer (parameter, else the label's prefix), original case; "" when none.
    public var issuer: String
    /// The label's account part, original case; "" when none.
    public var account: String
    /// Steam Guard codes: 5 characters from `steamAlphabet`, SHA-1, 30 s.
    public var isSteam: Bool

    /// Steam's code alphabet.
    public static let steamAlphabet = Array("23456789BCDFGHJKMNPQRTVWXY")
    /// Digits a code may have (liboath computes 6–8, `OneTimeCode` the rest).
    public static let allowedDigits = 6...10
    /// The longest time step accepted, in seconds (one day).
    public static let maximumPeriod = 86_400
    /// The largest HOTP counter (`Int64.max`, liboath computes from a
    /// `time_t`); a counter there makes no further code (`Keyshelf.oneTimeCode`).
    public static let maximumCounter = UInt64(Int64.max)

    public init(kind: Kind = .totp, key: Secret, hash: OTPHash = .sha1, digits: Int = 6, period: Int = 30,
                counter: UInt64 = 0, issuer: String = "", account: String = "", isSteam: Bool = false) {
        self.kind = kind
        self.key = key
        self.hash = hash
        self.digits = digits
        self.period = period
        self.counter = counter
        self.issuer = issuer
        self.account = account
        self.isSteam = isSteam
    }

    /// Parses `text`: an `otpauth://` URI, a `steam://` URI, or a bare base32 secret.
    ///
    /// Parameter names and the type are case-insensitive; the label and issuer
    /// keep their case. Unknown parameters (`image`, …) are ignored.
    /// - Throws: `KeychainError.param` naming what is wrong (never the secret):
    ///   no or invalid secret, unknown type or algorithm (never silently SHA-1),
    ///   digits outside 6–10, a period outside 1–86400, a counter that is not a number.
    public static func parse(_ text: String) throws(KeychainError) -> OTPAuth {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        let lower = trimmed.lowercased()
        if lower.hasPrefix("steam://") {
            var auth = OTPAuth(key: try decode(String(trimmed.dropFirst("steam://".count))))
            auth.makeSteam()
            return auth
        }
        if lower.hasPrefix("otpauth://") { return try parseURI(String(trimmed.dropFirst("otpauth://".count))) }
        if lower.contains("://") { throw KeychainError.param("a one-time-code secret is an otpauth:// URI, a steam:// URI or base32 text") }
        return OTPAuth(key: try decode(trimmed))
    }

    /// `otpauth://TYPE/LABEL?PARAMETERS` after the scheme.
    private static func parseURI(_ rest: String) throws(KeychainError) -> OTPAuth {
        let (beforeQuery, query) = split(rest, at: "?")
        let (typeText, labelText) = split(beforeQuery, at: "/")
        guard let kind = Kind(rawValue: typeText.lowercased()) else {
            throw KeychainError.param("unknown one-time-code type \(InertText.quoted(typeText)); use totp or hotp")
        }
        var parameters: [String: String] = [:]
        for pair in query.split(separator: "&") {
            let (name, value) = split(String(pair), at: "=")
            parameters[name.lowercased()] = value.removingPercentEncoding ?? value
        }
        guard let secret = parameters["secret"], !secret.isEmpty else {
            throw KeychainError.param("the otpauth URI has no secret parameter")
        }
        var auth = OTPAuth(kind: kind, key: try decode(secret))
        let label = labelText.removingPercentEncoding ?? labelText
        if let colon = label.firstIndex(of: ":") {
            auth.issuer = String(label[..<colon])
            auth.account = String(label[label.index(after: colon)...]).trimmingCharacters(in: .whitespaces)
        } else {
            auth.account = label
        }
        if let issuer = parameters["issuer"], !issuer.isEmpty { auth.issuer = issuer }
        if let algorithm = parameters["algorithm"] {
            guard let hash = OTPHash(rawValue: algorithm.uppercased()) else {
                throw KeychainError.param("unknown one-time-code algorithm \(InertText.quoted(algorithm)); use SHA1, SHA256 or SHA512")
            }
            auth.hash = hash
        }
        if let digits = parameters["digits"] {
            guard let value = Int(digits), allowedDigits.contains(value) else {
                throw KeychainError.param("a one-time code has 6 to 10 digits, not \(InertText.quoted(digits))")
            }
            auth.digits = value
        }
        if let period = parameters["period"] {
            guard let value = Int(period), (1...maximumPeriod).contains(value) else {
                throw KeychainError.param("the one-time-code period is 1 to \(maximumPeriod) seconds, not \(InertText.quoted(period))")
            }
            auth.period = value
        }
        if let counter = parameters["counter"] {
            guard let value = UInt64(counter), value <= maximumCounter else {
                throw KeychainError.param("the HOTP counter \(InertText.quoted(counter)) is not a whole number from 0 to \(maximumCounter)")
            }
            auth.counter = value
        }
        if parameters["encoder"]?.lowercased() == "steam" {
            guard auth.hash == .sha1 else { throw KeychainError.param("Steam codes use SHA1, not \(auth.hash.rawValue)") }
            auth.makeSteam()
        }
        return auth
    }

    private mutating func makeSteam() {
        isSteam = true
        digits = 5
        hash = .sha1
        if issuer.isEmpty { issuer = "Steam" }
    }

    /// Decodes a base32 secret; the error never repeats the text.
    private static func decode(_ text: String) throws(KeychainError) -> Secret {
        do {
            return try OneTimePassword.base32Decode(text)
        } catch {
            throw KeychainError.param("the one-time-code secret is not base32 text (A–Z, 2–7)")
        }
    }

    private static func split(_ text: String, at separator: Character) -> (String, String) {
        guard let at = text.firstIndex(of: separator) else { return (text, "") }
        return (String(text[..<at]), String(text[text.index(after: at)...]))
    }

    /// The `otpauth://` URI stored in the item and printed by `otp uri`:
    /// `otpauth://TYPE/ISSUER:ACCOUNT?secret=…&issuer=…&algorithm=…&digits=…&period=…`
    /// (`counter=` for HOTP, `encoder=steam` for Steam; the secret in base32
    /// without padding). Parsing it gives back an equal value.
    public var uri: String {
        let label = issuer.isEmpty ? account : "\(issuer):\(account)"
        var parts = ["secret=\(OneTimePassword.base32Encode(key))"]
        if !issuer.isEmpty { parts.append("issuer=\(Self.escaped(issuer))") }
        if isSteam {
            parts.append("encoder=steam")
        } else {
            parts += ["algorithm=\(hash.rawValue)", "digits=\(digits)"]
        }
        switch kind {
        case .totp: parts.append("period=\(period)")
        case .hotp: parts.append("counter=\(counter)")
        }
        return "otpauth://\(kind.rawValue)/\(Self.escaped(label, keeping: ":"))?\(parts.joined(separator: "&"))"
    }

    private static func escaped(_ text: String, keeping extra: String = "") -> String {
        var allowed = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~@")
        allowed.insert(charactersIn: extra)
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }
}
