import Foundation
import KeyshelfCredentials
import KeyshelfVault

/// What a row of the domain pane stands for, by value (never by its title):
/// a server with its scheme and port, so `http://x` and `https://x` are two domains.
public enum ShelfDomain: Hashable, Sendable {
    case server(ServerName)
    /// The generic passwords of one service (issue 13 rule 4), listed after the servers.
    case service(String)

    /// The pane's title: the server as `list` prints it (`ServerName.qualified`), or `service:NAME`.
    public var title: String {
        switch self {
        case .server(let server): server.qualified
        case .service(let name): "service:\(name)"
        }
    }

    /// The server, for the login flow and the generator; nil for a service.
    public var server: ServerName? {
        switch self {
        case .server(let server): server
        case .service: nil
        }
    }
}

/// What the TUI shows of one saved credential; no secret inside.
///
/// Built from a keychain item by the `Shelf`; `server` is the Unicode
/// display form (DESIGN §1), `port` is nil when it is the scheme's default.
public struct ShelfEntry: Equatable, Sendable, Identifiable {
    public var id: UUID
    /// Display form of the server (U-label), e.g. `bücher.example`.
    public let server: String
    /// The port when it is not the default (443 for https), else nil.
    public let port: Int?
    /// `server` or `server:port` (IPv6 in brackets), with `scheme://` when
    /// not https, as the domain pane shows it.
    public let serverWithPort: String
    /// The domain this entry belongs to (its identity; `serverWithPort` is only its title).
    public let domain: ShelfDomain
    public var account: String
    public var store: Store
    public var creationDate: Date
    public var modificationDate: Date
    /// The item's comment (notes).
    public var comment: String
    /// `kSecAttrLabel`; empty when none (issue 13 rule 5).
    public var label = ""
    /// `accessControl == .userPresence`: reveal asks the master password again.
    public var requiresUserPresence: Bool
    /// Set for an account that signs in with Apple (no password; DESIGN §13).
    public var signInWithApple: AppleSignIn?

    /// - Parameter serverWithPort: the title when the caller already has it
    ///   (shared between the accounts of one server); computed when nil.
    ///   - domain: the entry's domain; nil: an https server of `server` and `port`.
    public init(id: UUID = UUID(), server: String, port: Int? = nil, serverWithPort: String? = nil, domain: ShelfDomain? = nil,
                account: String, store: Store, creationDate: Date = Date(), modificationDate: Date? = nil, comment: String = "",
                requiresUserPresence: Bool = false, signInWithApple: AppleSignIn? = nil) {
        self.id = id
        self.server = server
        self.port = port
        let domain = domain ?? .server(ServerName(host: server, port: port ?? 0, scheme: "https"))
        self.domain = domain
        self.serverWithPort = serverWithPort ?? domain.title
        self.account = account
        self.store = store
        self.creationDate = creationDate
        self.modificationDate = modificationDate ?? creationDate
        self.comment = comment
        self.requiresUserPresence = requiresUserPresence
        self.signInWithApple = signInWithApple
    }
}
