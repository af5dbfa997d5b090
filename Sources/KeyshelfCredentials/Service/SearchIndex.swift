import Glibc
import KeyshelfVault

/// Entries and domains of a snapshot, with precomputed lower-cased search keys
/// so the TUI can filter 100k credentials per keystroke.
///
/// Each entry's key is the UTF-8 of its lower-cased display host, A-label
/// host, port, account, label and notes, separated by newlines; a query
/// matches when its lower-cased UTF-8 occurs in the key (`memchr` + `memcmp`).
struct SearchIndex {
    /// Entries sorted by server, then account, then store.
    private(set) var entries: [CredentialEntry] = []
    private var keys: [[UInt8]] = []
    /// Domains sorted by server.
    private(set) var domains: [DomainSummary] = []
    /// Index range in `entries` of each domain (entries are grouped by server).
    private var ranges: [ServerName: Range<Int>] = [:]

    init(_ items: StoredItems) {
        for store in Store.allCases {
            for item in items[store] where !item.isDeleted {
                guard let server = item.serverName else { continue }
                entries.append(CredentialEntry(item: item, server: server, store: store))
            }
        }
        entries.sort { a, b in
            if a.server != b.server { return a.server < b.server }
            if a.account != b.account { return a.account < b.account }
            return a.store == .local && b.store == .shared
        }
        keys.reserveCapacity(entries.count)
        var start = 0
        for (i, entry) in entries.enumerated() {
            let text = "\(entry.server.displayHost)\n\(entry.server.host)\n\(entry.server.port)\n\(entry.account)\n\(entry.label)\n\(entry.comment)"
            keys.append(Array(text.lowercased().utf8))
            if i + 1 == entries.count || entries[i + 1].server != entry.server {
                let group = entries[start...i]
                let local = group.count { $0.store == .local }
                domains.append(DomainSummary(server: entry.server, localCount: local, sharedCount: group.count - local))
                ranges[entry.server] = start..<(i + 1)
                start = i + 1
            }
        }
    }

    /// The entries of `server`.
    func entries(of server: ServerName) -> ArraySlice<CredentialEntry> {
        guard let range = ranges[server] else { return [] }
        return entries[range]
    }

    /// Indices of the entries whose key contains `query` (case-insensitive).
    func matches(_ query: String) -> [Int] {
        let needle = Array(query.lowercased().utf8)
        guard !needle.isEmpty else { return Array(entries.indices) }
        return needle.withUnsafeBytes { n in
            keys.indices.filter { i in
                keys[i].withUnsafeBytes { SearchIndex.contains($0, n) }
            }
        }
    }

    /// Whether `needle` (non-empty) occurs in `haystack`; `memmem` is a GNU
    /// extension Glibc does not export to Swift, so scan with `memchr`.
    static func contains(_ haystack: UnsafeRawBufferPointer, _ needle: UnsafeRawBufferPointer) -> Bool {
        guard haystack.count >= needle.count, let h = haystack.baseAddress, let n = needle.baseAddress else { return false }
        let first = Int32(needle[0])
        var offset = 0
        let lastStart = haystack.count - needle.count
        while offset <= lastStart {
            guard let hit = memchr(h + offset, first, lastStart - offset + 1) else { return false }
            let at = h.distance(to: UnsafeRawPointer(hit))
            if memcmp(h + at, n, needle.count) == 0 { return true }
            offset = at + 1
        }
        return false
    }
}
