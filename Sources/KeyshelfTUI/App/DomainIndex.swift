import Foundation

/// Credentials grouped by server and filtered by the shelf's search; pure data, no drawing.
///
/// Keeps the shelf's order (the domain facade sorts by server, then
/// account). Built once per change of the vault content. It does not match
/// text itself: `filter(matching:)` takes the positions `Shelf.search` found
/// (the facade's search, the same as `keyshelf search`), so a keystroke costs
/// one pass over the matches and the domains.
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
    /// Indexes into `domains` with a match, in display order (all when not filtered).
    public private(set) var visible: [Int]
    /// Which records matched, by position in `records`; nil when not filtered.
    private var matched: [Bool]?
    /// The domain of each record, by position in `records`.
    private var domainOf: [Int]

    public init(records: [ShelfEntry]) {
        self.records = records
        var domains: [Domain] = []
        var domainOf: [Int] = []
        domainOf.reserveCapacity(records.count)
        // Borrowed: reading `domain` through an array element would copy it (its strings' retains).
        records.withUnsafeBufferPointer { records in
            // Records of one domain usually arrive together: runs of one domain,
            // each looked up once. The table is sized by the runs, not by the
            // records (at 100k records in 20k domains that was megabytes of
            // table to fault in, a third of the grouping).
            var runStarts: [Int] = []
            for i in records.indices where i == 0 || !records[i].sharesDomain(with: records[i - 1]) {
                runStarts.append(i)
            }
            // The facade's listing sorts the domains: when each run's domain
            // precedes the next one's, none comes back and no table is needed.
            let ascending = runStarts.indices.dropFirst().allSatisfy { run in
                ShelfDomain.precedes(records[runStarts[run - 1]].place.domain, records[runStarts[run]].place.domain)
            }
            var position: [ShelfDomain: Int] = [:]
            if !ascending { position.reserveCapacity(runStarts.count) }
            for (run, start) in runStarts.enumerated() {
                let end = run + 1 < runStarts.count ? runStarts[run + 1] : records.count
                let domain = records[start].domain
                var current = domains.count
                // One hash per run: inserted as new, put back when it was known.
                if !ascending, let known = position.updateValue(current, forKey: domain) {
                    position[domain] = known
                    current = known
                } else {
                    domains.append(Domain(id: domain, title: records[start].serverWithPort, members: [], hasLocal: false, hasShared: false))
                    domains[current].members.reserveCapacity(end - start)
                }
                domains[current].members.append(contentsOf: start..<end)
                domainOf.append(contentsOf: repeatElement(current, count: end - start))
                for i in start..<end {
                    if records[i].store == .local { domains[current].hasLocal = true } else { domains[current].hasShared = true }
                }
            }
        }
        self.domains = domains
        self.domainOf = domainOf
        visible = Array(domains.indices)
    }

    /// Keeps the domains with a matching record and, in each, only the
    /// matching accounts; nil shows everything again.
    /// - Parameter positions: positions in `records` (`Shelf.search`); out-of-range ones are ignored.
    public mutating func filter(matching positions: [Int]?) {
        guard let positions else {
            matched = nil
            visible = Array(domains.indices)
            return
        }
        var matched = [Bool](repeating: false, count: records.count)
        var shown = [Bool](repeating: false, count: domains.count)
        for position in positions where matched.indices.contains(position) {
            matched[position] = true
            shown[domainOf[position]] = true
        }
        self.matched = matched
        visible = domains.indices.filter { shown[$0] }
    }

    /// The accounts of visible domain `position` to show: the matching ones
    /// (all of them when not filtered), as indexes into `records`.
    public func accounts(ofVisible position: Int) -> [Int] {
        guard visible.indices.contains(position) else { return [] }
        let members = domains[visible[position]].members
        guard let matched else { return members }
        return members.filter { matched[$0] }
    }

    /// The position in `visible` of `domain`, if shown.
    public func position(of domain: ShelfDomain) -> Int? {
        visible.firstIndex { domains[$0].id == domain }
    }
}
