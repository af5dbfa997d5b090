import CIDN2
import Glibc

/// A normalised server: host, port and scheme (DESIGN §1, issue 3 item 3).
///
/// `host` is stored in A-label form (UTS-46 **non-transitional** processing
/// through libidn2, so `faß` and `fass` stay different servers), lower case,
/// trailing dot dropped. IP literals are kept (IPv4 dotted quad, IPv6
/// compressed and without brackets). The port is part of the identity; the
/// scheme's default (443 for https, 80 for http) is folded to 0.
/// `bücher.example`, `xn--bcher-kva.example` and `https://BÜCHER.example:443/x`
/// are one server.
public struct ServerName: Hashable, Sendable, CustomStringConvertible, Comparable {
    /// A-label host, lower case, no trailing dot; or an IP literal (IPv6 without brackets).
    public let host: String
    /// The port; 0 when it is the scheme's default (443 https, 80 http).
    public let port: Int
    /// "https", or "http" when the input said so.
    public let scheme: String
    /// The host in Unicode (U-label) form, for display.
    public let displayHost: String

    /// Parses a host name, `host:port`, `[ipv6]:port` or a URL, read by
    /// `ServerURL`'s rules (the authority ends at the first "/", "?" or "#";
    /// user info ends at the last "@" inside it).
    ///
    /// User info (`user:pw@`), path, query and fragment are dropped; leading
    /// and trailing white space is ignored.
    /// - Parameter schemes: the schemes accepted; a URL with another is refused.
    ///   Without a scheme the server is https.
    /// - Throws: `ServerNameError` quoting `input` and saying why it was
    ///   refused (empty, bad characters, user info two readers could take
    ///   for two hosts, empty or over-long label, hyphen at a label's edge,
    ///   bad port, unsupported scheme, IDNA failure).
    public init(parsing input: String, schemes: Set<String> = ServerName.webSchemes) throws {
        try self.init(ServerURL(parsing: input), input: input, schemes: schemes)
    }

    /// The server of an already split `url`; `input` is quoted in errors.
    /// - Throws: `ServerNameError` as `init(parsing:schemes:)`.
    public init(_ url: ServerURL, input: String, schemes: Set<String> = ServerName.webSchemes) throws {
        let fail = { (reason: String) in ServerNameError(input: input, reason: reason) }
        let scheme = url.scheme ?? "https"
        guard schemes.contains(scheme) else {
            let known = schemes == ServerName.webSchemes ? "use http or https" : "not a Keychain protocol"
            throw fail("uses the unsupported scheme \(InertText.quoted(scheme)) (\(known))")
        }
        var hostPart = url.host
        let portPart = url.port
        if hostPart.hasPrefix("[") {
            hostPart = hostPart.dropFirst().dropLast()
            guard IPAddress.ipv6(String(hostPart)) != nil else { throw fail("is not a valid IPv6 address") }
        } else if hostPart.contains(":") {
            guard url.scheme == nil, IPAddress.ipv6(String(hostPart)) != nil else {
                throw fail("is not a valid IPv6 address (write [address]:port)")
            }
        }

        var port = 0
        if let portPart {
            // "host:" and "host:0443" are refused rather than guessed at, so
            // one server is never written two ways (docs/credentials.md).
            guard !portPart.isEmpty else {
                throw fail("has an empty port after \":\" (give a port from 1 to 65535, or leave out the \":\")")
            }
            let digits = portPart.allSatisfy { $0.isASCII && $0.isNumber }
            if digits && portPart.count > 1 && portPart.hasPrefix("0") {
                throw fail("has a port with a leading zero \(InertText.quoted(String(portPart))) (write it without leading zeros)")
            }
            guard digits, portPart.count <= 5, let value = Int(portPart), (1...65535).contains(value)
            else { throw fail("has an invalid port \(InertText.quoted(String(portPart))) (1–65535)") }
            port = value == ServerName.defaultPort(scheme: scheme) ? 0 : value
        }

        let host: String
        if let v6 = IPAddress.ipv6(String(hostPart)) {
            host = v6
        } else {
            do {
                host = try ServerName.normaliseDomain(String(hostPart))
            } catch let reason as HostReason {
                throw fail(reason.text)
            }
        }
        self.init(host: host, port: port, scheme: scheme)
    }

    /// `http` and `https`: the schemes of a web login (the CLI's SERVER, imports).
    public static let webSchemes: Set<String> = ["http", "https"]

    /// A server from stored, already normalised values (an `Item`'s `server`,
    /// `port` and `protocol`). No validation: the values came from `init(parsing:)`.
    public init(host: String, port: Int, scheme: String = "https") {
        self.host = host
        self.scheme = scheme
        self.port = port == ServerName.defaultPort(scheme: scheme) ? 0 : port
        self.displayHost = ServerName.unicodeForm(of: host)
    }

    /// The scheme's default port (443 https, 80 http, 25 smtp, …:
    /// `keychainProtocols`), 0 for a scheme not listed there.
    public static func defaultPort(scheme: String) -> Int {
        keychainProtocols[scheme] ?? 0
    }

    /// The Keychain's internet protocols (`kSecAttrProtocol…`) by URL scheme,
    /// each with its IANA default port, folded away like https's 443.
    public static let keychainProtocols: [String: Int] = [
        "afp": 548, "cifs": 445, "daap": 3689, "eppc": 3031, "ftp": 21, "ftps": 990, "http": 80, "https": 443,
        "imap": 143, "imaps": 993, "ipp": 631, "irc": 194, "ircs": 994, "ldap": 389, "ldaps": 636,
        "nntp": 119, "nntps": 563, "pop3": 110, "pop3s": 995, "rtsp": 554, "smb": 445, "smtp": 25,
        "socks": 1080, "ssh": 22, "svn": 3690, "telnet": 23, "telnets": 992,
    ]

    /// The port actually used: `port`, or the scheme's default when 0.
    public var effectivePort: Int { port != 0 ? port : ServerName.defaultPort(scheme: scheme) }

    /// The port as the Shared Web Credentials calls report it: nil when 443 (DESIGN §3).
    public var reportedPort: Int? { effectivePort == 443 ? nil : effectivePort }

    /// Whether `host` is an IPv6 literal.
    public var isIPv6: Bool { host.utf8.contains(UInt8(ascii: ":")) }

    /// `displayHost`, plus `:port` when `port != 0` (IPv6 then in brackets).
    public var display: String {
        guard port != 0 else { return displayHost }
        return isIPv6 ? "[\(displayHost)]:\(port)" : "\(displayHost):\(port)"
    }

    public var description: String { display }

    // `displayHost` follows from `host`: equality and hashing skip it.
    public static func == (a: ServerName, b: ServerName) -> Bool {
        a.host == b.host && a.port == b.port && a.scheme == b.scheme
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(host)
        hasher.combine(port)
        hasher.combine(scheme)
    }

    /// Orders by display host, then port, then scheme (for stable listings).
    public static func < (a: ServerName, b: ServerName) -> Bool {
        // Field by field, not as tuples: building the tuples copied the strings
        // (the listing's sort of 20k servers compares ~300k pairs).
        if a.displayHost != b.displayHost { return a.displayHost < b.displayHost }
        return a.port != b.port ? a.port < b.port : a.scheme < b.scheme
    }

    // MARK: - Host normalisation

    private struct HostReason: Error { var text: String }

    private static func normaliseDomain(_ raw: String) throws -> String {
        var name = raw
        if name.hasSuffix(".") { name.removeLast() }
        guard !name.isEmpty else { throw HostReason(text: "has no host name") }
        for scalar in name.unicodeScalars where scalar.isASCII {
            let c = Character(scalar)
            if c == " " || c == "\t" { throw HostReason(text: "contains a space") }
            if scalar.value < 0x20 || scalar.value == 0x7F { throw HostReason(text: "contains a control character") }
            if !(c.isLetter || c.isNumber || c == "-" || c == ".") {
                throw HostReason(text: "contains the character \(InertText.quoted(String(c)))")
            }
        }
        if name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control || $0.properties.isWhitespace }) {
            throw HostReason(text: "contains white space or a control character")
        }
        if name.split(separator: ".", omittingEmptySubsequences: false).contains(where: \.isEmpty) {
            throw HostReason(text: "has an empty label")
        }
        // Length limits first on ASCII labels, for a clearer message than libidn2's.
        if name.split(separator: ".").contains(where: { $0.utf8.count > 63 && $0.allSatisfy(\.isASCII) }) {
            throw HostReason(text: "has a label longer than 63 characters")
        }
        if name.allSatisfy(\.isASCII) && name.utf8.count > 253 {
            throw HostReason(text: "is longer than 253 characters")
        }
        let ascii = try toASCII(name)
        let labels = ascii.split(separator: ".", omittingEmptySubsequences: false)
        if labels.contains(where: \.isEmpty) { throw HostReason(text: "has an empty label") }
        if labels.contains(where: { $0.utf8.count > 63 }) {
            throw HostReason(text: "has a label longer than 63 characters")
        }
        if ascii.utf8.count > 253 { throw HostReason(text: "is longer than 253 characters") }
        if labels.contains(where: { $0.hasPrefix("-") || $0.hasSuffix("-") }) {
            throw HostReason(text: "has a label that starts or ends with a hyphen")
        }
        if let last = labels.last, last.allSatisfy({ $0.isASCII && $0.isNumber }) {
            guard let v4 = IPAddress.ipv4(ascii) else { throw HostReason(text: "is not a valid IPv4 address") }
            return v4
        }
        // An A-label must decode: refuses "xn--" labels that are not valid Punycode.
        guard unicodeOrNil(ascii) != nil else {
            throw HostReason(text: "has an invalid \"xn--\" label")
        }
        return ascii
    }

    /// UTS-46 non-transitional ToASCII with STD3 rules (`idn2_to_ascii_8z`).
    private static func toASCII(_ name: String) throws -> String {
        var out: UnsafeMutablePointer<CChar>?
        let flags = Int32(IDN2_NONTRANSITIONAL.rawValue | IDN2_NFC_INPUT.rawValue | IDN2_USE_STD3_ASCII_RULES.rawValue)
        let rc = idn2_to_ascii_8z(name, &out, flags)
        defer { if let out { idn2_free(out) } }
        guard rc == Int32(IDN2_OK.rawValue), let out else {
            let why = idn2_strerror(rc).map { String(cString: $0) } ?? "error \(rc)"
            throw HostReason(text: "is not a valid domain name (\(why))")
        }
        return String(cString: out).lowercased()
    }

    private static func unicodeOrNil(_ ascii: String) -> String? {
        var out: UnsafeMutablePointer<CChar>?
        let rc = idn2_to_unicode_8z8z(ascii, &out, 0)
        defer { if let out { idn2_free(out) } }
        guard rc == Int32(IDN2_OK.rawValue), let out else { return nil }
        return String(cString: out)
    }

    /// The Unicode form for display; A-labels only, so plain hosts skip libidn2.
    private static func unicodeForm(of host: String) -> String {
        guard containsACEPrefix(host) else { return host }
        return unicodeOrNil(host) ?? host
    }

    /// Whether `host` contains "xn--", searched in its UTF-8 bytes (Foundation's
    /// `contains` bridges to CFString and costs microseconds per host).
    private static func containsACEPrefix(_ host: String) -> Bool {
        var host = host
        return host.withUTF8 { b in
            b.count >= 4 && (0...(b.count - 4)).contains { i in
                b[i] == UInt8(ascii: "x") && b[i + 1] == UInt8(ascii: "n") && b[i + 2] == UInt8(ascii: "-") && b[i + 3] == UInt8(ascii: "-")
            }
        }
    }
}

/// IP literal parsing through `inet_pton` / `inet_ntop`, giving canonical text.
enum IPAddress {
    /// A C string would end at a NUL and hide what follows it.
    private static func plain(_ text: String) -> Bool {
        !text.utf8.contains(0)
    }

    static func ipv4(_ text: String) -> String? {
        guard plain(text) else { return nil }
        var addr = in_addr()
        guard inet_pton(AF_INET, text, &addr) == 1 else { return nil }
        var buf = [CChar](repeating: 0, count: Int(INET_ADDRSTRLEN))
        guard inet_ntop(AF_INET, &addr, &buf, socklen_t(buf.count)) != nil else { return nil }
        return String(decoding: buf.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    static func ipv6(_ text: String) -> String? {
        guard text.contains(":"), plain(text) else { return nil }
        var addr = in6_addr()
        guard inet_pton(AF_INET6, text, &addr) == 1 else { return nil }
        var buf = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        guard inet_ntop(AF_INET6, &addr, &buf, socklen_t(buf.count)) != nil else { return nil }
        return String(decoding: buf.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

extension String {
    func trimmingWhitespace() -> String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
              let last = scalars.lastIndex(where: { !$0.properties.isWhitespace })
        else { return "" }
        return String(scalars[first...last])
    }
}
