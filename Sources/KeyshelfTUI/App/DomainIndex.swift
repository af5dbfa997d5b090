import Foundation

/// Credentials grouped by server and filtered by a search query; pure data, no drawing.
///
/// Keeps the shelf's order (the domain facade sorts by server, then
/// account). Built once per change of the vault content; the search text is
/// built on the first search, so the first frame after unlock does not pay
/// for it. At 100k credentials a keystroke's filter is one pass over that text.
public struct DomainIndex: Sendable {
    /// One row of the domain pane.
    public struct Domain: Sendable, Equatable {
        /// What the row stands for.
        public var id: ShelfDomain
        /// `server` or `server:port`, with `scheme://` when not https.
        public var title: String
        /// Indexes into `records` of this domain's accounts, in the shelf's order.
        public var members: [Int]
        public var hasLocal: Bool
        public var hasShared: Bool
    }

    public private(set) var records: [ShelfEntry]
    public private(set) var domains: [Domain]
    /// Indexes into `domains` that match `query`, in display order.
    public private(set) var visible: [Int]
    public private(set) var query = ""
    /// Lower-cased domain title and account names of every domain, each domain's
    /// text ending in a NUL byte; `blobStarts[i]` is where domain i begins.
    private var blob: [UInt8] = []
    private var blobStarts: [Int] = []

    public init(records: [ShelfEntry]) {
        self.records = records
        var domains: [Domain] = []
        var position: [ShelfDomain: Int] = [:]
        // At most one domain per record; growing the table step by step would rehash every domain.
        position.reserveCapacity(records.count)
        var previous: ShelfDomain?
        var current = -1
        for i in records.indices {
            let domain = records[i].domain
            if domain != previous {
                // Records of one server usually arrive together; look up only at a change.
                if let known = position[domain] {
                    current = known
                } else {
                    current = domains.count
                    position[domain] = current
                    domains.append(Domain(id: domain, title: records[i].serverWithPort, members: [], hasLocal: false, hasShared: false))
                }
                previous = domain
            }
            domains[current].members.append(i)
            if records[i].store == .local { domains[current].hasLocal = true } else { domains[current].hasShared = true }
        }
        self.domains = domains
        visible = Array(domains.indices)
    }

    /// Keeps the domains whose title or any account contains `newQuery` (case-insensitive).
    public mutating func filter(_ newQuery: String) {
        query = newQuery
        let needle = Array(newQuery.lowercased().utf8)
        guard !needle.isEmpty else {
            visible = Array(domains.indices)
            return
        }
        if blobStarts.isEmpty { buildBlob() }
        var found: [Int] = []
        blob.withUnsafeBufferPointer { hay in
            needle.withUnsafeBufferPointer { pin in
                let first = pin[0]
                let last = hay.count - pin.count
                var offset = 0
                while offset <= last {
                    guard hay[offset] == first, (1..<pin.count).allSatisfy({ hay[offset + $0] == pin[$0] }) else {
                        offset += 1
                        continue
                    }
                    let domain = domainIndex(atBlobOffset: offset)
                    found.append(domain)
                    offset = domain + 1 < blobStarts.count ? blobStarts[domain + 1] : hay.count
                }
            }
        }
        visible = found
    }

    private mutating func buildBlob() {
        var bytes: [UInt8] = []
        var starts: [Int] = []
        starts.reserveCapacity(domains.count)
        for domain in domains {
            starts.append(bytes.count)
            DomainIndex.appendLowercased(domain.title, to: &bytes)
            for member in domain.members {
                bytes.append(0x0A)
                DomainIndex.appendLowercased(records[member].account, to: &bytes)
            }
            bytes.append(0)
        }
        blob = bytes
        blobStarts = starts
    }

    /// Appends the lower-cased UTF-8 of `text`; ASCII, the common case,
    /// without the temporary `String` of `lowercased()` (the blob's build is
    /// part of the first keystroke of a search).
    private static func appendLowercased(_ text: String, to bytes: inout [UInt8]) {
        var text = text
        let ascii = text.withUTF8 { utf8 in
            guard !utf8.contains(where: { $0 >= 0x80 }) else { return false }
            let start = bytes.count
            bytes.append(contentsOf: utf8)
            for i in start..<bytes.count where bytes[i] &- 65 < 26 { bytes[i] |= 0x20 }
            return true
        }
        if !ascii {
            bytes += text.lowercased().utf8
        }
    }

    /// The domain whose text contains blob offset `offset` (binary search).
    private func domainIndex(atBlobOffset offset: Int) -> Int {
        var low = 0
        var high = blobStarts.count - 1
        while low < high {
            let mid = (low + high + 1) / 2
            if blobStarts[mid] <= offset { low = mid } else { high = mid - 1 }
        }
        return low
    }

    /// The accounts of visible domain `position` to show: all of them when the
    /// domain name matches the query, else only the matching accounts.
    public func accounts(ofVisible position: Int) -> [Int] {
        guard visible.indices.contains(position) else { return [] }
        let domain = domains[visible[position]]
        let needle = query.lowercased()
        if needle.isEmpty || domain.title.lowercased().contains(needle) { return domain.members }
        return domain.members.filter { records[$0].account.lowercased().contains(needle) }
    }

    /// The position in `visible` of `domain`, if shown.
    public func position(of domain: ShelfDomain) -> Int? {
        visible.firstIndex { domains[$0].id == domain }
    }
}
