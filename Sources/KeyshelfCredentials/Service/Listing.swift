import KeyshelfVault

/// The live internet passwords of a snapshot in listing order: domains sorted
/// by server, each domain's entries by account, local before shared.
///
/// Built in O(n) plus the sort of the distinct servers: items are grouped by
/// server (one `ServerName`, so one libidn2 call at most, per domain, not per
/// item), then placed by a counting sort over the sorted domains. Items are
/// read in place, never copied whole (an `Item` holds a dozen strings).
struct Listing {
    /// Entries sorted by server, then account, local before shared.
    private(set) var entries: [CredentialEntry] = []
    /// Domains sorted by server.
    private(set) var domains: [DomainSummary] = []
    /// Entry index range of each domain, parallel to `domains`, ascending.
    private(set) var ranges: [Range<Int>] = []

    /// Where an item sits in the snapshot.
    private struct Member {
        var store: Store
        var index: Int
    }

    /// A group's identity: the item's stored server, protocol and folded port.
    private struct ServerKey: Hashable {
        var host: String
        var port: Int
        var scheme: String
    }

    init(_ items: VaultContents) {
        // Each step in its own function, so that what it alone needs (the
        // grouping's hash table, 12.6 MB at 100k servers) is freed before the
        // entries and domains are made: the listing's peak memory is the agent's.
        var (servers, order, placed) = arranged(items)

        // Unsafe buffers: reading a field through one borrows it, where an
        // array element access may copy the whole item (a dozen retains).
        items.local.withUnsafeBufferPointer { local in
            items.shared.withUnsafeBufferPointer { shared in
                func item(_ m: Member) -> UnsafePointer<Item> {
                    (m.store == .local ? local : shared).baseAddress! + m.index
                }
                entries.reserveCapacity(placed.count)
                domains.reserveCapacity(servers.count)
                for (range, group) in zip(ranges, order) {
                    if range.count > 1 {
                        placed[range].sort { a, b in
                            let x = item(a), y = item(b)
                            return x.pointee.account != y.pointee.account
                                ? x.pointee.account < y.pointee.account
                                : (a.store == .local && b.store == .shared)
                        }
                    }
                    var localCount = 0
                    for member in placed[range] {
                        entries.append(CredentialEntry(item: item(member).pointee, server: servers[group], store: member.store))
                        if member.store == .local { localCount += 1 }
                    }
                    domains.append(DomainSummary(server: servers[group], localCount: localCount, sharedCount: range.count - localCount))
                }
            }
        }
    }

    /// Every live web login of `items` as a member of its server's group
    /// (the item's stored server, protocol and folded port), groups in the
    /// order first met: the servers, each member, and each member's group.
    private static func groups(of items: VaultContents) -> (servers: [ServerName], members: [Member], memberGroup: [Int]) {
        let count = items.local.count + items.shared.count
        var groupOf: [ServerKey: Int] = [:]
        // At most one server per item; growing the table step by step would
        // rehash every key several times (a third of the listing at 100k servers).
        groupOf.reserveCapacity(count)
        var servers: [ServerName] = []
        var members: [Member] = []
        var memberGroup: [Int] = []
        members.reserveCapacity(count)
        memberGroup.reserveCapacity(count)
        for store in Store.allCases {
            let list = items[store]
            var last: (index: Int, group: Int)?
            for i in list.indices where !list[i].isDeleted && list[i].itemClass == .internetPassword {
                let group: Int
                // Consecutive items of one server, the common case, skip the hash lookup.
                if let last, list[last.index].server == list[i].server, list[last.index].port == list[i].port,
                   list[last.index].protocol == list[i].protocol {
                    group = last.group
                } else {
                    let key = Listing.key(of: list[i])
                    if let known = groupOf[key] {
                        group = known
                    } else {
                        group = servers.count
                        groupOf[key] = group
                        servers.append(ServerName(host: key.host, port: key.port, scheme: key.scheme))
                    }
                }
                last = (i, group)
                members.append(Member(store: store, index: i))
                memberGroup.append(group)
            }
        }
        return (servers, members, memberGroup)
    }

    /// The servers, their listing order, and the members in listing order
    /// by server (a counting sort; accounts are sorted within each range
    /// afterwards); sets `ranges` (each domain's entries, in that order).
    private mutating func arranged(_ items: VaultContents) -> (servers: [ServerName], order: [Int], placed: [Member]) {
        let (servers, members, memberGroup) = Self.groups(of: items)
        let order = servers.indices.sorted { servers[$0] < servers[$1] }
        let groupCount = servers.count
        var counts = [Int](repeating: 0, count: groupCount)
        for group in memberGroup { counts[group] += 1 }
        var starts = [Int](repeating: 0, count: groupCount)
        var next = 0
        ranges.reserveCapacity(groupCount)
        for group in order {
            starts[group] = next
            ranges.append(next..<(next + counts[group]))
            next += counts[group]
        }
        var placed = [Member](repeating: Member(store: .local, index: 0), count: members.count)
        for (member, group) in zip(members, memberGroup) {
            placed[starts[group]] = member
            starts[group] += 1
        }
        return (servers, order, placed)
    }

    /// The position in `domains` of the domain holding entry `entry` (binary search over `ranges`).
    func domain(ofEntry entry: Int) -> Int {
        var low = 0
        var high = ranges.count - 1
        while low < high {
            let mid = (low + high + 1) / 2
            if ranges[mid].lowerBound <= entry { low = mid } else { high = mid - 1 }
        }
        return low
    }

    /// The live entries of `server` in listing order, read straight from
    /// `items` (one pass, no grouping or sorting of other servers), for
    /// callers that need one domain and no listing.
    static func entries(of server: ServerName, in items: VaultContents) -> [CredentialEntry] {
        let wanted = ServerKey(host: server.host, port: server.port, scheme: server.scheme)
        var found: [CredentialEntry] = []
        for store in Store.allCases {
            let list = items[store]
            for i in list.indices where !list[i].isDeleted && list[i].itemClass == .internetPassword
                && list[i].server == server.host && key(of: list[i]) == wanted {
                found.append(CredentialEntry(item: list[i], server: server, store: store))
            }
        }
        found.sort { a, b in
            a.account != b.account ? a.account < b.account : (a.store == .local && b.store == .shared)
        }
        return found
    }

    /// The port folded as `ServerName` folds it, so 443 and 0 are one domain.
    private static func key(of item: Item) -> ServerKey {
        let port = item.port == ServerName.defaultPort(scheme: item.protocol) ? 0 : item.port
        return ServerKey(host: item.server, port: port, scheme: item.protocol)
    }
}
