import KeyshelfVault

/// A SERVER as typed for a lookup: a host, the port when given, and the
/// scheme when given (issue 13 rule 1, docs/credentials.md "Servers keep their scheme").
///
/// Keychain: an attribute left out of a query does not constrain it. So
/// `host` or `host:port` without a scheme matches the items of every
/// protocol at that host (and port); `http://host` only the http ones. A
/// port left out means each protocol's default port (`http://host` and
/// `https://host` both match `host`, `https://host:8443` does not).
public struct ServerPattern: Sendable, Hashable, CustomStringConvertible {
    /// The normalised A-label host (as `ServerName.host`).
    public let host: String
    /// The port as given, unfolded (`host:443` keeps 443); nil when none was given.
    public let port: Int?
    /// The scheme, lower case; nil when none was given (every protocol matches).
    public let scheme: String?

    /// Parses `input` as `ServerName(parsing:schemes:)` does, remembering
    /// whether a scheme and a port were written.
    /// - Throws: `ServerNameError` as `ServerName(parsing:schemes:)`.
    public init(parsing input: String, schemes: Set<String> = ServerName.webSchemes) throws {
        let url = try ServerURL(parsing: input)
        let server = try ServerName(url, input: input, schemes: schemes)
        host = server.host
        scheme = url.scheme
        if url.scheme != nil {
            port = server.port == 0 ? nil : server.port
        } else {
            port = url.port.map { _ in server.effectivePort }
        }
    }

    /// The pattern that matches exactly `server` (its scheme, host and port).
    public init(_ server: ServerName) {
        host = server.host
        scheme = server.scheme
        port = server.port == 0 ? nil : server.port
    }

    /// A pattern from its parts, already normalised (the agent's wire form).
    public init(host: String, port: Int?, scheme: String?) {
        self.host = host
        self.port = port
        self.scheme = scheme
    }

    /// The one server this pattern names when it names one: a scheme was given.
    public var exact: ServerName? {
        scheme.map { ServerName(host: host, port: port ?? 0, scheme: $0) }
    }

    /// The server a new item gets: the scheme given, else https (DESIGN §8).
    public var newServer: ServerName {
        ServerName(host: host, port: port ?? 0, scheme: scheme ?? "https")
    }

    /// The Keychain query for this pattern's internet passwords, optionally of one `account`.
    public func query(account: String? = nil) -> ItemQuery {
        if let exact { return .internet(exact, account: account) }
        var query = ItemQuery(itemClass: .internetPassword, account: account, server: host)
        if let port { query.effectivePort = port } else { query.port = 0 }
        return query
    }

    /// Whether `server` is one this pattern matches.
    public func matches(_ server: ServerName) -> Bool {
        guard server.host == host else { return false }
        if let scheme, server.scheme != scheme { return false }
        return port.map { server.effectivePort == $0 } ?? (server.port == 0)
    }

    /// The pattern as the user could type it again: `newServer.qualified`,
    /// without the scheme when none was given.
    public var display: String {
        if scheme != nil { return newServer.qualified }
        let server = ServerName(host: host, port: 0, scheme: "https")
        guard let port else { return server.display }
        return server.isIPv6 ? "[\(server.displayHost)]:\(port)" : "\(server.displayHost):\(port)"
    }

    public var description: String { display }
}

extension ServerName {
    /// `display`, with `scheme://` in front when the scheme is not https:
    /// what `list` prints and `get` accepts (`http://127.0.0.1:8765`).
    public var qualified: String {
        scheme == "https" ? display : "\(scheme)://\(display)"
    }
}
