/// A host name, `host:port` or URL split into its parts by the RFC 3986 /
/// WHATWG rules, so that keyshelf, git and browsers read the same host
/// (issue 11 items 6–7; docs/credentials.md, "Reading a server").
///
/// - The scheme is the text before "://" (`ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )`).
/// - The authority ends at the first "/", "?" or "#".
/// - User info is everything before the last "@" *inside the authority*.
///
/// Ambiguous input, which two URL readers could take for two hosts, is
/// refused instead of guessed at: user info with characters outside RFC 3986's
/// `userinfo` (a space, a second "@", …), an empty host, and control
/// characters anywhere. The host and port are checked by `ServerName`.
public struct ServerURL: Sendable, Equatable {
    /// The scheme in lower case; nil when the input had no "://".
    public var scheme: String?
    /// The user info as written (still percent-encoded); nil when there is no "@".
    public var userInfo: Substring?
    /// The host as written: brackets of an IPv6 literal kept, port removed.
    public var host: Substring
    /// The text after the host's ":"; nil without a ":".
    public var port: Substring?
    /// Everything after the authority (path, query, fragment), as written.
    public var rest: Substring

    /// The user name of the user info, percent-decoded; nil without user info
    /// or for an empty user name.
    public var user: String? {
        guard let userInfo else { return nil }
        let name = userInfo.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)[0]
        return name.isEmpty ? nil : Self.percentDecoded(name)
    }

    /// Whether the user info carries a password (`user:password@`).
    public var hasPassword: Bool { userInfo?.contains(":") ?? false }

    /// The path: from the end of the authority to the query or fragment.
    public var path: Substring {
        rest.prefix { $0 != "?" && $0 != "#" }
    }

    /// Splits `input` (leading and trailing white space ignored).
    /// - Throws: `ServerNameError` quoting `input`: a control character, an
    ///   empty or malformed scheme, user info outside RFC 3986's grammar, an
    ///   empty host.
    public init(parsing input: String) throws(ServerNameError) {
        let fail = { (reason: String) in ServerNameError(input: input, reason: reason) }
        let text = Substring(input.trimmingWhitespace())
        if text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            throw fail("contains a control character")
        }
        var authority = text
        if let sep = Self.schemeSeparator(in: text) {
            let given = text[..<sep.lowerBound]
            guard let first = given.unicodeScalars.first else { throw fail("has an empty scheme") }
            guard Self.isASCIILetter(first), given.unicodeScalars.allSatisfy(Self.isSchemeCharacter) else {
                throw fail("has a malformed scheme \(InertText.quoted(String(given)))")
            }
            scheme = given.lowercased()
            authority = text[sep.upperBound...]
        } else {
            scheme = nil
        }
        let end = authority.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? authority.endIndex
        rest = authority[end...]
        authority = authority[..<end]
        if let at = authority.lastIndex(of: "@") {
            let info = authority[..<at]
            // The user info may hold a password: the reasons never quote it.
            if let bad = info.unicodeScalars.first(where: { !Self.isUserInfoCharacter($0) }) {
                let what = bad == " " ? "a space" : bad == "@" ? "a second \"@\"" : "a character outside RFC 3986's grammar"
                throw fail("has \(what) in the user info before \"@\" (two readers could take it for two hosts; percent-encode it)")
            }
            if Self.hasBadPercentEncoding(info) {
                throw fail("has a \"%\" not followed by two hex digits in the user info")
            }
            userInfo = info
            authority = authority[authority.index(after: at)...]
        } else {
            userInfo = nil
        }
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { throw fail("has an unclosed \"[\"") }
            host = authority[...close]
            let after = authority[authority.index(after: close)...]
            guard after.isEmpty || after.hasPrefix(":") else { throw fail("has text after \"]\"") }
            port = after.isEmpty ? nil : after.dropFirst()
        } else if authority.filter({ $0 == ":" }).count > 1 {
            // A bare IPv6 literal ("::1"); `ServerName` checks it.
            host = authority
            port = nil
        } else if let colon = authority.firstIndex(of: ":") {
            host = authority[..<colon]
            port = authority[authority.index(after: colon)...]
        } else {
            host = authority
            port = nil
        }
        guard !host.isEmpty, host != "." else { throw fail("has no host name") }
    }

    /// The "://" after the scheme: the first ":" when no "/", "?" or "#"
    /// comes before it and "//" follows it.
    private static func schemeSeparator(in text: Substring) -> Range<Substring.Index>? {
        guard let colon = text.firstIndex(where: { $0 == ":" || $0 == "/" || $0 == "?" || $0 == "#" }),
              text[colon] == ":", text[colon...].hasPrefix("://") else { return nil }
        return colon..<text.index(colon, offsetBy: 3)
    }

    private static func isASCIILetter(_ s: Unicode.Scalar) -> Bool {
        ("a"..."z").contains(s) || ("A"..."Z").contains(s)
    }

    private static func isSchemeCharacter(_ s: Unicode.Scalar) -> Bool {
        isASCIILetter(s) || ("0"..."9").contains(s) || s == "+" || s == "-" || s == "."
    }

    /// RFC 3986 `userinfo`: unreserved, "%", sub-delims and ":"; non-ASCII
    /// letters are allowed as in an IRI (RFC 3987 `iuserinfo`).
    private static func isUserInfoCharacter(_ s: Unicode.Scalar) -> Bool {
        if !s.isASCII { return !s.properties.isWhitespace }
        return isSchemeCharacter(s) || "_~%!$&'()*;=,:".unicodeScalars.contains(s)
    }

    /// Whether a "%" in `text` does not start `%XX`.
    private static func hasBadPercentEncoding(_ text: Substring) -> Bool {
        var index = text.startIndex
        while let percent = text[index...].firstIndex(of: "%") {
            let digits = text[text.index(after: percent)...].prefix(2)
            guard digits.count == 2, digits.allSatisfy(\.isHexDigit) else { return true }
            index = text.index(percent, offsetBy: 3)
        }
        return false
    }

    /// `input` without the user info of its authority (`user:password@`), so
    /// a password written into a URL never reaches a message. `mark`
    /// stands in for it where the message must show that user info was
    /// there (a refusal of "a second @" must not quote a URL without any).
    /// Textual: works on input that `init(parsing:)` refuses.
    public static func withoutUserInfo(_ input: String, mark: String = "") -> String {
        let authorityStart = schemeSeparator(in: Substring(input))?.upperBound ?? input.startIndex
        let authorityEnd = input[authorityStart...].firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) ?? input.endIndex
        guard let at = input[authorityStart..<authorityEnd].lastIndex(of: "@") else { return input }
        return String(input[..<authorityStart]) + mark + String(input[input.index(after: at)...])
    }

    /// `text` with `%XX` escapes decoded (as UTF-8); invalid UTF-8 is repaired.
    public static func percentDecoded(_ text: Substring) -> String {
        var bytes: [UInt8] = []
        var utf8 = Array(text.utf8)[...]
        while let byte = utf8.popFirst() {
            if byte == UInt8(ascii: "%"), utf8.count >= 2,
               let value = UInt8(String(decoding: utf8.prefix(2), as: UTF8.self), radix: 16) {
                bytes.append(value)
                utf8 = utf8.dropFirst(2)
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
