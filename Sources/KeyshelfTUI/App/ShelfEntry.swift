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

    /// Same case, same payload. Written out: the derived `==` copies both
    /// payloads (their strings' retains), and the index compares a record's
    /// domain with its neighbour's for each of 100k records.
    public static func == (a: ShelfDomain, b: ShelfDomain) -> Bool {
        switch a {
        case .server(let x):
            if case .server(let y) = b { return x == y }
            return false
        case .service(let x):
            if case .service(let y) = b { return x == y }
            return false
        }
    }

    /// A strict order consistent with `==`: servers by `ServerName`'s order
    /// (display host, port, scheme; equal servers have one display host), then
    /// services by name. Domains that each precede the next are all distinct.
    static func precedes(_ a: ShelfDomain, _ b: ShelfDomain) -> Bool {
        switch a {
        case .server(let x):
            if case .server(let y) = b { return x < y }
            return true
        case .service(let x):
            if case .service(let y) = b { return x < y }
            return false
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
    /// Where an entry lives: its server fields, which a shelf shares between
    /// the accounts of one domain (one reference per entry instead of six
    /// strings: at 100k entries the records and their grouping copied them all).
    final class Place: Equatable, Sendable {
        let server: String
        let port: Int?
        let serverWithPort: String
        let domain: ShelfDomain

        /// - Parameters: as `ShelfEntry.init`.
        init(server: String, port: Int?, serverWithPort: String?, domain: ShelfDomain?) {
            self.server = server
            self.port = port
            let domain = domain ?? .server(ServerName(host: server, port: port ?? 0, scheme: "https"))
            self.domain = domain
            self.serverWithPort = serverWithPort ?? domain.title
        }

        static func == (a: Place, b: Place) -> Bool {
            a === b || (a.domain == b.domain && a.server == b.server && a.port == b.port && a.serverWithPort == b.serverWithPort)
        }
    }

    public var id: UUID
    let place: Place
    /// Display form of the server (U-label), e.g. `bücher.example`.
    public var server: String { place.server }
    /// The port when it is not the default (443 for https), else nil.
    public var port: Int? { place.port }
    /// `server` or `server:port` (IPv6 in brackets), with `scheme://` when
    /// not https, as the domain pane shows it.
    public var serverWithPort: String { place.serverWithPort }
    /// The domain this entry belongs to (its identity; `serverWithPort` is only its title).
    public var domain: ShelfDomain { place.domain }
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
    ///   - label: `kSecAttrLabel`, empty when none.
    public init(id: UUID = UUID(), server: String, port: Int? = nil, serverWithPort: String? = nil, domain: ShelfDomain? = nil,
                account: String, store: Store, creationDate: Date = Date(), modificationDate: Date? = nil, comment: String = "",
                label: String = "", requiresUserPresence: Bool = false, signInWithApple: AppleSignIn? = nil) {
        self.init(id: id, place: Place(server: server, port: port, serverWithPort: serverWithPort, domain: domain),
                  account: account, store: store, creationDate: creationDate, modificationDate: modificationDate, comment: comment,
                  label: label, requiresUserPresence: requiresUserPresence, signInWithApple: signInWithApple)
    }

    /// An entry at `place`, shared with the other accounts of its domain.
    init(id: UUID, place: Place, account: String, store: Store, creationDate: Date, modificationDate: Date?, comment: String,
         label: String, requiresUserPresence: Bool, signInWithApple: AppleSignIn?) {
        self.id = id
        self.place = place
        self.account = account
        self.store = store
        self.creationDate = creationDate
        self.modificationDate = modificationDate ?? creationDate
        self.comment = comment
        self.label = label
        self.requiresUserPresence = requiresUserPresence
        self.signInWithApple = signInWithApple
    }

    /// Whether `other` is of the same domain; the shared `Place` answers without comparing strings.
    func sharesDomain(with other: ShelfEntry) -> Bool {
        place === other.place || place.domain == other.place.domain
    }
}
