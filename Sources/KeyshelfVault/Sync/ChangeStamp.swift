import Foundation

/// A record's modification stamp for merging synced copies (docs/sync.md): a
/// hybrid logical clock reading, wall time in milliseconds plus a counter, so
/// that a change made after another one seen on this machine is ordered after
/// it even when this machine's clock is behind. Wire tag 24 (16 bytes:
/// u64 `wallMilliseconds`, u32 `counter`, u32 `node`, little-endian).
public struct ChangeStamp: Sendable, Equatable {
    /// Milliseconds since 1970-01-01T00:00:00Z, never below the largest stamp
    /// the store held when the change was made.
    public var wallMilliseconds: UInt64
    /// Orders changes within one millisecond of `wallMilliseconds`.
    public var counter: UInt32
    /// Random per change: breaks the tie between two machines that made a
    /// change at the same `wallMilliseconds` and `counter`.
    public var node: UInt32
    /// The `modificationDate` this stamp was issued for (not on the wire; set
    /// from the record when read). A record whose `modificationDate` no longer
    /// equals it was changed since, and gets a new stamp when saved.
    public var issuedFor: Date

    public init(wallMilliseconds: UInt64, counter: UInt32, node: UInt32, issuedFor: Date) {
        self.wallMilliseconds = wallMilliseconds
        self.counter = counter
        self.node = node
        self.issuedFor = issuedFor
    }

    /// The stamp of a record written before stamps existed: its
    /// `modificationDate` in whole milliseconds, counter and node 0.
    public static func fallback(for modificationDate: Date) -> ChangeStamp {
        ChangeStamp(wallMilliseconds: milliseconds(modificationDate), counter: 0, node: 0, issuedFor: modificationDate)
    }

    /// `date` in whole milliseconds since 1970 (0 before 1970).
    public static func milliseconds(_ date: Date) -> UInt64 {
        let value = (date.timeIntervalSince1970 * 1000).rounded(.down)
        return value > 0 && value < 1.8e19 ? UInt64(value) : 0
    }

    /// `wallMilliseconds` as a date.
    public var wallDate: Date { Date(timeIntervalSince1970: Double(wallMilliseconds) / 1000) }

    /// True when `self` orders before `other`: wall time, then counter, then node.
    public func precedes(_ other: ChangeStamp) -> Bool {
        (wallMilliseconds, counter, node) < (other.wallMilliseconds, other.counter, other.node)
    }

    /// Same order position as `other` (`issuedFor` not compared).
    public func ties(_ other: ChangeStamp) -> Bool {
        (wallMilliseconds, counter, node) == (other.wallMilliseconds, other.counter, other.node)
    }

    /// The next reading of a hybrid logical clock whose last reading is
    /// `latest` (the largest stamp the store holds), at wall time `now`:
    /// `now` when it is later, else `latest` with the counter raised.
    public static func next(after latest: ChangeStamp?, now: Date, issuedFor: Date,
                            node: UInt32 = UInt32.random(in: 1...UInt32.max)) -> ChangeStamp {
        let wall = milliseconds(now)
        guard let latest, latest.wallMilliseconds >= wall else {
            return ChangeStamp(wallMilliseconds: wall, counter: 0, node: node, issuedFor: issuedFor)
        }
        if latest.counter == UInt32.max {
            return ChangeStamp(wallMilliseconds: latest.wallMilliseconds + 1, counter: 0, node: node, issuedFor: issuedFor)
        }
        return ChangeStamp(wallMilliseconds: latest.wallMilliseconds, counter: latest.counter + 1, node: node, issuedFor: issuedFor)
    }
}

/// `Item.changeStamp`'s storage. Two stamps are equal when they order alike
/// (`issuedFor`, memory-only, is not compared); an empty slot (an item not
/// saved yet) equals any stamp, since the stamp is the save's, not part of
/// the contents: an item equals itself read back after a save.
struct StampSlot: Sendable, Equatable {
    var stamp: ChangeStamp?

    static func == (a: StampSlot, b: StampSlot) -> Bool {
        switch (a.stamp, b.stamp) {
        case (nil, nil): true
        case let (x?, y?): x.ties(y)
        default: true
        }
    }
}

extension Item {
    /// The stamp merges order this record by: `changeStamp`, or for a record
    /// written before stamps existed, `ChangeStamp.fallback(for: modificationDate)`.
    public var effectiveStamp: ChangeStamp {
        changeStamp ?? ChangeStamp.fallback(for: modificationDate)
    }

    /// Whether the record changed since its stamp was issued (or never had one)
    /// and so needs a new stamp before it is saved.
    public var needsStamp: Bool {
        changeStamp?.issuedFor != modificationDate
    }
}

/// Issues change stamps to the records a save changed (`VaultSession.modify`,
/// `add(to:)`): every record whose `needsStamp` is true gets the next reading
/// of a hybrid logical clock whose state is the largest stamp in the store, so
/// no extra state is kept and a merged-in stamp from a machine whose clock is
/// ahead moves this machine's clock forward.
public enum ChangeStamper {
    /// Stamps the records of `items` that need it, at wall time `now`.
    /// - Returns: the clock's last reading: the largest stamp of `items` now.
    @discardableResult
    public static func stamp(_ items: inout [Item], now: Date) -> ChangeStamp? {
        // One pass over the store in place: a save of a large store must not copy each item.
        var needing: [Int] = []
        var latest: ChangeStamp?
        items.withUnsafeBufferPointer { items in
            for i in items.indices {
                if items[i].needsStamp { needing.append(i) }
                if let stamp = items[i].changeStamp, latest.map({ $0.precedes(stamp) }) ?? true { latest = stamp }
            }
        }
        return stamp(&items, needing, after: latest, now: now)
    }

    /// Stamps the records at `positions` of `items` that need it, when no
    /// other record can: `latest` is at least every other record's stamp (a
    /// bound kept by the caller), so the store is not scanned.
    /// - Returns: the clock's last reading, a bound for the next call.
    public static func stamp(_ items: inout [Item], at positions: [Int], after latest: ChangeStamp?, now: Date) -> ChangeStamp? {
        var latest = latest
        for i in positions {
            if let stamp = items[i].changeStamp, latest.map({ $0.precedes(stamp) }) ?? true { latest = stamp }
        }
        return stamp(&items, positions.filter { items[$0].needsStamp }, after: latest, now: now)
    }

    private static func stamp(_ items: inout [Item], _ needing: [Int], after latest: ChangeStamp?, now: Date) -> ChangeStamp? {
        var latest = latest
        for i in needing {
            let stamp = ChangeStamp.next(after: latest, now: now, issuedFor: items[i].modificationDate)
            items[i].changeStamp = stamp
            latest = stamp
        }
        return latest
    }

    /// Stamps `item`, about to be added to `store`, when it needs it.
    public static func stamp(_ item: inout Item, addedTo store: [Item], now: Date) {
        guard item.needsStamp else { return }
        item.changeStamp = ChangeStamp.next(after: latestStamp(in: store), now: now, issuedFor: item.modificationDate)
    }

    /// The largest stamp of `items`: the hybrid clock's last reading.
    public static func latestStamp(in items: [Item]) -> ChangeStamp? {
        var latest: ChangeStamp?
        items.withUnsafeBufferPointer { items in
            for i in items.indices {
                guard let stamp = items[i].changeStamp else { continue }
                if latest.map({ $0.precedes(stamp) }) ?? true { latest = stamp }
            }
        }
        return latest
    }
}
