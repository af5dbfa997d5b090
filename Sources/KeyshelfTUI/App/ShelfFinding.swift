import Foundation
import KeyshelfVault

/// One account's audit findings as the "Security Recommendations" view shows
/// them (docs/audit.md): names, problem words and reasons, never a password.
public struct ShelfFinding: Sendable, Equatable {
    /// The item's id (the same as its `ShelfEntry`'s).
    public var id: UUID
    public var serverWithPort: String
    public var account: String
    public var store: Store
    /// Problem word ("weak", "reused", "compromised", "insecure") and reason, in report order.
    public var problems: [(word: String, reason: String)]

    public init(id: UUID, serverWithPort: String, account: String, store: Store, problems: [(word: String, reason: String)]) {
        self.id = id
        self.serverWithPort = serverWithPort
        self.account = account
        self.store = store
        self.problems = problems
    }

    public static func == (a: ShelfFinding, b: ShelfFinding) -> Bool {
        a.id == b.id && a.problems.map(\.word) == b.problems.map(\.word) && a.problems.map(\.reason) == b.problems.map(\.reason)
    }
}

extension Shelf {
    /// No findings: for shelves that do not audit.
    public func auditFindings() throws -> [ShelfFinding] { [] }
    /// Never moves: for shelves that audit nothing in the background.
    public var auditGeneration: Int { 0 }
}
