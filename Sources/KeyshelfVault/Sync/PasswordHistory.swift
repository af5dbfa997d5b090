import Foundation
import KeyshelfCrypto

/// One earlier password of a record (DESIGN §1 "password history"): kept when
/// a merge (or a change) replaces it, so that no sync ever destroys a
/// password. Wire tag 25 (docs/vault-format.md).
public struct PasswordHistoryEntry: Sendable, Equatable {
    /// The replaced password.
    public var password: Secret
    /// When it was replaced (the replacing change's stamp time).
    public var replaced: Date

    public init(password: Secret, replaced: Date) {
        self.password = password
        self.replaced = replaced
    }
}

/// The rules of a record's password history: capped, pruned by age, and a
/// pure function of its entries so that every machine keeps the same ones.
public enum PasswordHistory {
    /// Most entries a record keeps (KeePassXC keeps 10 history items by default).
    public static let maximumCount = 10
    /// Entries replaced longer ago than this before the record's own last
    /// change are dropped, in seconds (365 days).
    public static let maximumAge: TimeInterval = 365 * 24 * 3600

    /// `entries` in their kept form: one entry per password (the latest
    /// `replaced`), none equal to `current`, none older than `maximumAge`
    /// before `changed`, newest first, at most `maximumCount`. Depends on
    /// nothing but its arguments (not on the clock), so merging the same
    /// copies on two machines keeps the same history.
    public static func normalized(_ entries: [PasswordHistoryEntry], current: Secret?, changed: Date) -> [PasswordHistoryEntry] {
        var kept: [PasswordHistoryEntry] = []
        for entry in entries {
            if let current, entry.password == current { continue }
            if changed.timeIntervalSince(entry.replaced) > maximumAge { continue }
            if let i = kept.firstIndex(where: { $0.password == entry.password }) {
                if kept[i].replaced < entry.replaced { kept[i].replaced = entry.replaced }
            } else {
                kept.append(entry)
            }
        }
        kept.sort { a, b in
            if a.replaced != b.replaced { return a.replaced > b.replaced }
            return digest(a.password).lexicographicallyPrecedes(digest(b.password))
        }
        return Array(kept.prefix(maximumCount))
    }

    /// A total order between two passwords replaced at the same moment, that
    /// reveals nothing when printed (nothing prints it).
    private static func digest(_ secret: Secret) -> [UInt8] {
        secret.withUnsafeBytes { GenericHash.hash($0, byteCount: 16) }
    }
}

extension Item {
    /// Keeps `replaced`'s password (unless it is a tombstone or the password
    /// is there already) and its history in this item's history, the
    /// password dated `changed`; normalised by `PasswordHistory.normalized`.
    /// For an item that takes the place of another with its primary key — a
    /// merge of two records (`ItemMerge`), an edit onto a saved account — so
    /// that no password is lost (docs/sync.md, "Password history").
    public mutating func absorbHistory(of replaced: Item, changed: Date) {
        var entries = passwordHistory + replaced.passwordHistory
        // A password already in the history keeps its date: merging the same copies again changes nothing.
        if !replaced.isDeleted, let password = replaced.password, !entries.contains(where: { $0.password == password }) {
            entries.append(PasswordHistoryEntry(password: password, replaced: changed))
        }
        passwordHistory = PasswordHistory.normalized(entries, current: self.password, changed: changed)
    }
}
