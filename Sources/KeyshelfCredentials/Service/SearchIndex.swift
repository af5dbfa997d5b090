import Glibc
import KeyshelfVault

/// Entries and domains of a snapshot, with precomputed lower-cased search keys
/// so the TUI can filter 100k credentials per keystroke.
///
/// Items are grouped by server first (one `ServerName` per domain, not per
/// item), domains are sorted, then each domain's entries by account. Every
/// entry's key — the lower-cased display host, A-label host, port, account,
/// label and notes, separated by newlines — lives in one contiguous byte
/// buffer, so a search is one pass over it.
struct SearchIndex {
    /// Entries sorted by server, then account, local before shared.
    private(set) var entries: [CredentialEntry] = []
    /// Domains sorted by server.
    private(set) var domains: [DomainSummary] = []
    /// Entry index range of each domain, parallel to `domains`.
    private var ranges: [Range<Int>] = []
    private var domainIndex: [ServerName: Int] = [:]
    /// Search keys of all entries, back to back; entry i's key is
    /// `keys[keyStarts[i]..<keyStarts[i + 1]]`.
    private var keys: [UInt8] = []
    private var keyStarts: [Int] = [0]

    private struct ServerKey: Hashable {
        var host: String
        var port: Int
        var scheme: String
    }

    init(_ items: VaultContents) {
        // Group item positions (not item copies) by server; consecutive items
        // of one server, the common case, skip the hash lookup.
        var groups: [ServerKey: Int] = [:]
        var members: [[(store: Store, index: Int)]] = []
        var keysOfGroups: [ServerKey] = []
        for store in Store.allCases {
            let list = items[store]
            var last: (server: String, port: Int, scheme: String, group: Int)?
            for i in list.indices where !list[i].isDeleted && list[i].itemClass == .internetPassword {
                let item = list[i]
                let group: Int
                if let last, last.server == item.server, last.port == item.port, last.scheme == item.protocol {
                    group = last.group
                } else {
                    // The port folded as `ServerName` folds it, so 443 and 0 are one domain.
                    let port = item.port == ServerName.defaultPort(scheme: item.protocol) ? 0 : item.port
                    let key = ServerKey(host: item.server, port: port, scheme: item.protocol)
                    if let known = groups[key] {
                        group = known
                    } else {
                        group = members.count
                        groups[key] = group
                        members.append([])
                        keysOfGroups.append(key)
                    }
                    last = (item.server, item.port, item.protocol, group)
                }
                members[group].append((store, i))
            }
        }
        let servers = keysOfGroups.indices
            .map { (group: $0, name: ServerName(host: keysOfGroups[$0].host, port: keysOfGroups[$0].port, scheme: keysOfGroups[$0].scheme)) }
            .sorted { $0.name < $1.name }
        let total = members.reduce(0) { $0 + $1.count }
        entries.reserveCapacity(total)
        keyStarts.reserveCapacity(total + 1)
        keys.reserveCapacity(total * 48)
        for server in servers {
            let sorted = members[server.group].sorted { a, b in
                let x = items[a.store][a.index].account, y = items[b.store][b.index].account
                return x != y ? x < y : (a.store == .local && b.store == .shared)
            }
            let start = entries.count
            var serverKey: [UInt8] = []
            SearchIndex.appendLowercased(server.name.displayHost, to: &serverKey)
            serverKey.append(10)
            SearchIndex.appendLowercased(server.name.host, to: &serverKey)
            serverKey.append(10)
            SearchIndex.appendLowercased(String(server.name.port), to: &serverKey)
            var local = 0
            for (store, index) in sorted {
                let item = items[store][index]
                entries.append(CredentialEntry(item: item, server: server.name, store: store))
                keys += serverKey
                keys.append(10)
                SearchIndex.appendLowercased(item.account, to: &keys)
                if !item.label.isEmpty {
                    keys.append(10)
                    SearchIndex.appendLowercased(item.label, to: &keys)
                }
                if !item.comment.isEmpty {
                    keys.append(10)
                    SearchIndex.appendLowercased(item.comment, to: &keys)
                }
                keyStarts.append(keys.count)
                if store == .local { local += 1 }
            }
            domainIndex[server.name] = domains.count
            domains.append(DomainSummary(server: server.name, localCount: local, sharedCount: sorted.count - local))
            ranges.append(start..<entries.count)
        }
    }

    /// The entries of `server`.
    func entries(of server: ServerName) -> ArraySlice<CredentialEntry> {
        guard let i = domainIndex[server] else { return [] }
        return entries[ranges[i]]
    }

    /// The domain summary of `server`, if it has live entries.
    func domain(of server: ServerName) -> DomainSummary? {
        domainIndex[server].map { domains[$0] }
    }

    /// Indices (ascending) of the entries whose key contains `query`, case-insensitively.
    func matches(_ query: String) -> [Int] {
        var needle: [UInt8] = []
        SearchIndex.appendLowercased(query, to: &needle)
        guard !needle.isEmpty else { return Array(entries.indices) }
        var out: [Int] = []
        keys.withUnsafeBytes { hay in
            needle.withUnsafeBytes { n in
                keyStarts.withUnsafeBufferPointer { starts in
                    guard let base = hay.baseAddress, let nBase = n.baseAddress, hay.count >= n.count else { return }
                    let first = Int32(n[0])
                    var offset = 0
                    var entry = 0
                    let lastStart = hay.count - n.count
                    while offset <= lastStart {
                        guard let hit = memchr(base + offset, first, lastStart - offset + 1) else { break }
                        let at = base.distance(to: UnsafeRawPointer(hit))
                        while starts[entry + 1] <= at { entry += 1 }
                        // A match must lie within one entry's key.
                        if at + n.count <= starts[entry + 1] && memcmp(base + at, nBase, n.count) == 0 {
                            out.append(entry)
                            offset = starts[entry + 1]
                        } else {
                            offset = at + 1
                        }
                    }
                }
            }
        }
        return out
    }

    /// Appends the lower-cased UTF-8 of `text`; ASCII without a `String` round trip.
    static func appendLowercased(_ text: String, to bytes: inout [UInt8]) {
        var text = text
        let ascii = text.withUTF8 { utf8 in
            guard !utf8.contains(where: { $0 >= 0x80 }) else { return false }
            bytes.append(contentsOf: utf8.lazy.map { $0 &- 65 < 26 ? $0 | 0x20 : $0 })
            return true
        }
        if !ascii {
            bytes += text.lowercased().utf8
        }
    }
}
