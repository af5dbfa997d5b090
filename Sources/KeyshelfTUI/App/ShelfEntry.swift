import Foundation
import KeyshelfVault

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
    /// `server` or `server:port` (IPv6 in brackets), as the domain pane shows it.
    public let serverWithPort: String
    public var account: String
    public var store: Store
    public var creationDate: Date
    public var modificationDate: Date
    /// The item's comment (notes).
    public var comment: String
    /// `accessControl == .userPresence`: reveal asks the master password again.
    public var requiresUserPresence: Bool
    /// Set for an account that signs in with Apple (no password; DESIGN §13).
    public var signInWithApple: AppleSignIn?

    /// - Parameter serverWithPort: the title when the caller already has it
    ///   (shared between the accounts of one server); computed when nil.
    public init(id: UUID = UUID(), server: String, port: Int? = nil, serverWithPort: String? = nil, account: String, store: Store,
                creationDate: Date = Date(), modificationDate: Date? = nil, comment: String = "", requiresUserPresence: Bool = false,
                signInWithApple: AppleSignIn? = nil) {
        self.id = id
        self.server = server
        self.port = port
        self.serverWithPort = serverWithPort ?? ShelfEntry.title(server: server, port: port)
        self.account = account
        self.store = store
        self.creationDate = creationDate
        self.modificationDate = modificationDate ?? creationDate
        self.comment = comment
        self.requiresUserPresence = requiresUserPresence
        self.signInWithApple = signInWithApple
    }

    /// `server` or `server:port`; an IPv6 literal gets brackets.
    public static func title(server: String, port: Int?) -> String {
        guard let port else { return server }
        // An IPv6 literal needs brackets before a port.
        return server.utf8.contains(UInt8(ascii: ":")) ? "[\(server)]:\(port)" : "\(server):\(port)"
    }
}
