/// A domain a client is associated with: the `<fqdn>[:port]` of an
/// associated-domains entry `webcredentials:<fqdn>[:port]` (DESIGN §12).
///
/// Always https (the association file is fetched over https and shared web
/// credentials are https logins): it covers the credentials saved for
/// exactly this host and port with the https scheme. No wildcards, no parent
/// domains: `login.example.com` is not covered by `example.com` (Apple's
/// `webcredentials:` entries name one host each).
public struct AssociatedDomain: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The normalised server (scheme https; port 0 for 443).
    public let server: ServerName

    /// Parses `DOMAIN[:PORT]`; a leading `webcredentials:` is accepted and
    /// dropped, as is an `https://` URL's path. `?mode=…` is not supported.
    /// - Throws: `AssociationError.invalidDomain` (the `ServerNameError`'s
    ///   sentence, or a word on the unsupported part).
    public init(parsing text: String) throws(AssociationError) {
        var input = Substring(text)
        if input.hasPrefix("webcredentials:") { input = input.dropFirst("webcredentials:".count) }
        if input.contains("?") {
            throw AssociationError(.invalidDomain, "\(InertText.quoted(text)): modes such as ?mode=developer are not supported; give DOMAIN[:PORT]")
        }
        if input.hasPrefix("*.") {
            throw AssociationError(.invalidDomain, "\(InertText.quoted(text)): wildcard domains are not supported; associate each host")
        }
        do {
            server = try ServerName(parsing: String(input), schemes: ["https"])
        } catch {
            throw AssociationError(.invalidDomain, "\(error)")
        }
    }

    /// A domain from a stored key (`key`), or nil when it does not parse.
    init?(key: String) {
        guard let domain = try? AssociatedDomain(parsing: key) else { return nil }
        self = domain
    }

    /// The form stored and shown: the A-label host (in brackets for IPv6)
    /// and `:port` when not 443, e.g. `example.com`, `intranet.example:8443`.
    public var key: String {
        let host = server.isIPv6 ? "[\(server.host)]" : server.host
        return server.port == 0 ? host : "\(host):\(server.port)"
    }

    /// `host[:port]` with the host in Unicode, for messages.
    public var display: String { server.display }

    /// Whether a credential saved for `credentialServer` belongs to this
    /// domain: same host and port, scheme https.
    public func covers(_ credentialServer: ServerName) -> Bool {
        credentialServer.scheme == "https" && credentialServer.host == server.host && credentialServer.port == server.port
    }

    /// The URLs the association file is fetched from, in order.
    public var fileURLs: [String] {
        let host = server.isIPv6 ? "[\(server.host)]" : server.host
        let authority = server.port == 0 ? host : "\(host):\(server.port)"
        return AASAFile.paths.map { "https://\(authority)\($0)" }
    }

    public var description: String { key }

    public static func < (a: AssociatedDomain, b: AssociatedDomain) -> Bool { a.server < b.server }
}
