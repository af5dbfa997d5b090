import Foundation
import KeyshelfVault

/// What the TUI shows of one saved credential; no secret inside.
///
/// Built from a keychain item by the `Shelf`; `server` is the Unicode
/// display form (DESIGN §1), `port` is nil when it is the scheme's default.
public struct ShelfEntry: Equatable, Sendable, Identifiable {
    public var id: UUID
    /// Display form of the server (U-label), e.g. `bücher.example`.
    public var server: String
    /// The port when it is not the default (443 for https), else nil.
    public var port: Int?
    public var account: String
    public var store: Store
    public var creationDate: Date
    public var modificationDate: Date
    /// The item's comment (notes).
    public var comment: String
    /// `accessControl == .userPresence`: reveal asks the master password again.
    public var requiresUserPresence: Bool

    public init(id: UUID = UUID(), server: String, port: Int? = nil, account: String, store: Store,
                creationDate: Date = Date(), modificationDate: Date? = nil, comment: String = "", requiresUserPresence: Bool = false) {
        self.id = id
        self.server = server
        self.port = port
        self.account = account
        self.store = store
        self.creationDate = creationDate
        self.modificationDate = modificationDate ?? creationDate
        self.comment = comment
        self.requiresUserPresence = requiresUserPresence
    }

    /// `server` or `server:port`, as the domain pane shows it.
    public var serverWithPort: String {
        guard let port else { return server }
        // An IPv6 literal needs brackets before a port.
        return server.contains(":") ? "[\(server)]:\(port)" : "\(server):\(port)"
    }
}
