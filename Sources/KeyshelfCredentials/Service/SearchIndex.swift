import Glibc

/// Lower-cased search keys of a `Listing`'s entries, or of generic
/// passwords, so the TUI can filter 100k credentials per keystroke.
///
/// Every entry's key — the lower-cased display host, A-label host, port,
/// account, label and notes of a credential; the service, account, label and
/// notes of a generic password; separated by newlines — lives in one
/// contiguous byte buffer, so a search is one pass over it, with the same
/// matching (case folding, no match across two entries) for both kinds.
/// Built only when a search needs it: listings never pay for it.
struct SearchIndex {
    /// Search keys of all entries, back to back; entry i's key is
    /// `keys[keyStarts[i]..<keyStarts[i + 1]]`.
    private var keys: [UInt8] = []
    private var keyStarts: [Int] = [0]

    init(_ listing: Listing) {
        let entries = listing.entries
        keyStarts.reserveCapacity(entries.count + 1)
        // The keys' size (exact for ASCII; lower-casing may change other
        // text's), so the buffer is allocated once: growing it by doubling
        // held two copies at once (about 15 MB at 100k credentials).
        var byteCount = 0
        for (domain, range) in zip(listing.domains, listing.ranges) {
            let server = domain.server
            byteCount += range.count * (server.displayHost.utf8.count + server.host.utf8.count + String(server.port).utf8.count + 3)
            for i in range {
                byteCount += entries[i].account.utf8.count + entries[i].label.utf8.count + entries[i].comment.utf8.count + 2
            }
        }
        keys.reserveCapacity(byteCount)
        var serverKey: [UInt8] = []
        for (domain, range) in zip(listing.domains, listing.ranges) {
            // One server part per domain, copied into each of its entries' keys.
            let server = domain.server
            serverKey.removeAll(keepingCapacity: true)
            SearchIndex.appendLowercased(server.displayHost, to: &serverKey)
            serverKey.append(10)
            SearchIndex.appendLowercased(server.host, to: &serverKey)
            serverKey.append(10)
            SearchIndex.appendLowercased(String(server.port), to: &serverKey)
            for i in range {
                keys += serverKey
                appendRest(account: entries[i].account, label: entries[i].label, comment: entries[i].comment)
            }
        }
    }

    /// The keys of `generics`, in their order: service, account, label, notes.
    init(_ generics: [GenericEntry]) {
        keyStarts.reserveCapacity(generics.count + 1)
        for entry in generics {
            SearchIndex.appendLowercased(entry.service, to: &keys)
            appendRest(account: entry.account, label: entry.label, comment: entry.comment)
        }
    }

    /// Ends the key begun before: account, then label and notes when not empty.
    private mutating func appendRest(account: String, label: String, comment: String) {
        keys.append(10)
        SearchIndex.appendLowercased(account, to: &keys)
        if !label.isEmpty {
            keys.append(10)
            SearchIndex.appendLowercased(label, to: &keys)
        }
        if !comment.isEmpty {
            keys.append(10)
            SearchIndex.appendLowercased(comment, to: &keys)
        }
        keyStarts.append(keys.count)
    }

    /// Indices (ascending) of the entries whose key contains `query`, case-insensitively.
    func matches(_ query: String) -> [Int] {
        var needle: [UInt8] = []
        SearchIndex.appendLowercased(query, to: &needle)
        guard !needle.isEmpty else { return Array(0..<(keyStarts.count - 1)) }
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
