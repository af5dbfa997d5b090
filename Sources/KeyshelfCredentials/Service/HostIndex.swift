import KeyshelfVault

/// The positions of a store's items by their `server` (host), so that a
/// lookup of one server reads that server's few items instead of matching
/// every item of the store (`get` at 100k credentials: four scans of 100k
/// items were nearly all of the agent's time, docs/benchmarks.md "Session 12").
///
/// A chained hash table in two flat arrays (no allocation per item): `heads`
/// holds, per bucket, the first position plus one (0: empty), `next` the
/// following position plus one in the same bucket, in store order. Hosts are
/// hashed and compared as `String`s, the way `ItemQuery.matches` compares them,
/// so every item a query with that `server` can match is among the positions.
/// Built from one snapshot; `ShelfReader.adopt` drops it with the snapshot,
/// except after a write that kept every item's host and position
/// (`ShelfWriter.mutate(near:)`), which `extend`s it by the items appended.
/// A position whose item has another host now is skipped when read.
struct HostIndex {
    private var heads: [Int32]
    private var next: [Int32]
    private let mask: Int
    /// How many items of the store the index covers (positions 0..<count).
    private(set) var count: Int

    init(_ items: [Item]) {
        precondition(items.count < Int(Int32.max), "a store of more than 2^31 items")
        var size = 16
        while size < 2 * items.count { size <<= 1 }
        let mask = size - 1
        var heads = [Int32](repeating: 0, count: size)
        var next = [Int32](repeating: 0, count: items.count)
        items.withUnsafeBufferPointer { list in
            guard let base = list.baseAddress else { return }
            // Backwards, so that each chain runs in store order.
            for i in list.indices.reversed() {
                let bucket = (base + i).pointee.server.hashValue & mask
                next[i] = heads[bucket]
                heads[bucket] = Int32(i + 1)
            }
        }
        self.mask = mask
        self.heads = heads
        self.next = next
        count = items.count
    }

    /// Adds the positions `count..<items.count` (items appended since), each
    /// at the end of its chain so that chains stay in store order; rebuilds
    /// when the table would be fuller than one item per bucket.
    mutating func extend(to items: [Item]) {
        guard items.count > count else { return }
        guard items.count <= heads.count else {
            self = HostIndex(items)
            return
        }
        next.append(contentsOf: repeatElement(0, count: items.count - count))
        for i in count..<items.count {
            let bucket = items[i].server.hashValue & mask
            var link = Int(heads[bucket])
            if link == 0 {
                heads[bucket] = Int32(i + 1)
                continue
            }
            while next[link - 1] != 0 { link = Int(next[link - 1]) }
            next[link - 1] = Int32(i + 1)
        }
        count = items.count
    }

    /// The positions in `items` (the array this index was built from, or
    /// extended to) of every item whose `server` is `host`, ascending.
    func positions(of host: String, in items: [Item]) -> [Int] {
        var found: [Int] = []
        items.withUnsafeBufferPointer { list in
            guard let base = list.baseAddress else { return }
            var link = Int(heads[host.hashValue & mask])
            while link != 0 {
                if (base + link - 1).pointee.server == host { found.append(link - 1) }
                link = Int(next[link - 1])
            }
        }
        return found
    }
}
