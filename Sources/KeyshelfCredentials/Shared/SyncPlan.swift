import Foundation
import KeyshelfVault

/// What a merge does to one copy of the shared records (docs/sync.md): the
/// per-record plan `keyshelf sync --dry-run` prints and the counts a sync
/// commit message carries. Names only (server, account), never a secret.
public struct RecordChanges: Sendable, Equatable {
    /// One record's change.
    public struct Change: Sendable, Equatable {
        public enum Kind: String, Sendable { case added, changed, removed }
        public var kind: Kind
        public var id: UUID
        /// "server account" or "service account" for display.
        public var name: String
    }

    public var changes: [Change] = []

    public var added: Int { changes.filter { $0.kind == .added }.count }
    public var changed: Int { changes.filter { $0.kind == .changed }.count }
    public var removed: Int { changes.filter { $0.kind == .removed }.count }
    public var isEmpty: Bool { changes.isEmpty }

    /// The changes that turn `old` into `new`, matched by id: a live record
    /// new to `old` is added, one that became a tombstone removed, one whose
    /// stamp, contents or history differ changed. Tombstones new to `old`
    /// count as nothing (there was nothing to remove).
    public static func between(old: [Item], new: [Item]) -> RecordChanges {
        var previous: [UUID: Int] = [:]
        previous.reserveCapacity(old.count)
        for (i, item) in old.enumerated() { previous[item.id] = i }
        var out = RecordChanges()
        // Names only for the records that changed: at 100k, naming every record
        // (IDNA display, inert quoting) was a tenth of a sync's own time.
        func note(_ kind: Change.Kind, _ item: Item) {
            out.changes.append(Change(kind: kind, id: item.id, name: displayName(item)))
        }
        for item in new {
            guard let i = previous[item.id] else {
                if !item.isDeleted { note(.added, item) }
                continue
            }
            let before = old[i]
            if item.isDeleted {
                if !before.isDeleted { note(.removed, item) }
            } else if before.isDeleted {
                note(.added, item)
            } else if before != item && !(before.effectiveStamp.ties(item.effectiveStamp) && sameVisible(before, item)) {
                note(.changed, item)
            }
        }
        return out
    }

    /// "3 added, 1 changed, 1 removed" (zero counts left out); "no change".
    public var summary: String {
        let parts = [(added, "added"), (changed, "changed"), (removed, "removed")].filter { $0.0 > 0 }.map { "\($0.0) \($0.1)" }
        return parts.isEmpty ? "no change" : parts.joined(separator: ", ")
    }

    private static func sameVisible(_ a: Item, _ b: Item) -> Bool {
        a.password == b.password && a.passwordHistory == b.passwordHistory && a.otpauth == b.otpauth
            && a.label == b.label && a.comment == b.comment && a.primaryKey == b.primaryKey
    }

    /// "example.com alice", "service api-token", shown inert.
    static func displayName(_ item: Item) -> String {
        let place = item.serverName?.display ?? item.service
        return InertText.make(place) + " " + InertText.quoted(item.account)
    }
}

/// The plan of one sync (`keyshelf sync --dry-run`): what the merge brings
/// into this machine's copy, what it sends, and the records both sides
/// changed since their common base (resolved by the rules of `ItemMerge`).
public struct SyncPlan: Sendable {
    /// `ours` → merged: what this machine receives.
    public var incoming: RecordChanges
    /// `theirs` → merged: what the remote receives.
    public var outgoing: RecordChanges
    /// Records changed on both sides since the base, or two records with one
    /// primary key: "name: kept the later change; the other password is in its history".
    public var conflicts: [String]
    /// The merged records.
    public var merged: [Item]

    /// Plans merging `theirs` into `ours`; `base` is their common ancestor (empty when none).
    public init(ours: [Item], theirs: [Item], base: [Item]) {
        merged = ItemMerge.merge(ours: ours, theirs: theirs)
        incoming = RecordChanges.between(old: ours, new: merged)
        outgoing = RecordChanges.between(old: theirs, new: merged)
        conflicts = Self.changedOnBothSides(ours: ours, theirs: theirs, base: base)
            + Self.addedOnBothSides(ours: ours, theirs: theirs, merged: merged)
    }

    /// Records whose stamps differ between the copies and moved on both
    /// sides since `base`. Positions, not copies of the items, are kept, and
    /// `base` is searched only for those records: at 100k records, tables of
    /// whole items were most of a sync's own time.
    private static func changedOnBothSides(ours: [Item], theirs: [Item], base: [Item]) -> [String] {
        var theirsByID: [UUID: Int] = [:]
        theirsByID.reserveCapacity(theirs.count)
        for (i, item) in theirs.enumerated() { theirsByID[item.id] = i }
        var differing: [(ours: Int, theirs: Int)] = []
        for (i, item) in ours.enumerated() {
            if let j = theirsByID[item.id], !item.effectiveStamp.ties(theirs[j].effectiveStamp) { differing.append((i, j)) }
        }
        guard !differing.isEmpty else { return [] }
        var baseStamps: [UUID: ChangeStamp] = [:]
        let wanted = Set(differing.map { ours[$0.ours].id })
        for item in base where wanted.contains(item.id) { baseStamps[item.id] = item.effectiveStamp }
        var found: [String] = []
        for (i, j) in differing {
            let item = ours[i], other = theirs[j]
            let b = baseStamps[item.id]
            let oursChanged = b.map { !$0.ties(item.effectiveStamp) } ?? true
            let theirsChanged = b.map { !$0.ties(other.effectiveStamp) } ?? true
            if oursChanged && theirsChanged {
                let later = ItemMerge.beats(item, other) ? "this machine's" : "the remote's"
                found.append("\(RecordChanges.displayName(item)): changed on both sides; kept \(later) later change" + (item.password != other.password && !item.isDeleted && !other.isDeleted ? ", the other password is in its history" : ""))
            }
        }
        return found
    }

    /// Records live in their copies but tombstones after the merge: they lost to one with their primary key.
    private static func addedOnBothSides(ours: [Item], theirs: [Item], merged: [Item]) -> [String] {
        var deletedAfter = Set(merged.lazy.filter(\.isDeleted).map(\.id))
        guard !deletedAfter.isEmpty else { return [] }
        for side in [ours, theirs] {
            for item in side where item.isDeleted { deletedAfter.remove(item.id) }
        }
        var found: [String] = []
        for side in [ours, theirs] {
            for item in side where deletedAfter.remove(item.id) != nil {
                found.append("\(RecordChanges.displayName(item)): added on both sides; kept the later one, the other's password is in its history")
            }
        }
        return found
    }
}

/// Rollback detection (docs/sync.md, "Remote trust"): records are never
/// removed from the shared file (a delete leaves a tombstone) and a record's
/// stamp only grows, so a copy that descends from another holds every record
/// of it at an equal or later stamp. One that does not is an older state
/// replayed (or the remote lost data), and is refused.
public enum RollbackCheck {
    /// The records of `older` that `newer` lacks or holds at an earlier stamp
    /// (display names, at most `limit`). Empty when `newer` may descend from `older`.
    public static func regressions(newer: [Item], older: [Item], limit: Int = 3) -> [String] {
        var stamps: [UUID: ChangeStamp] = [:]
        for item in newer { stamps[item.id] = item.effectiveStamp }
        var out: [String] = []
        for item in older where !item.accessible.isThisDeviceOnly {
            guard let stamp = stamps[item.id] else {
                out.append(RecordChanges.displayName(item) + " is missing")
                if out.count == limit { break }
                continue
            }
            if stamp.precedes(item.effectiveStamp) {
                out.append(RecordChanges.displayName(item) + " is at an older change")
                if out.count == limit { break }
            }
        }
        return out
    }
}
