import Foundation

/// Credentials grouped by server and filtered by a search query; pure data, no drawing.
///
/// Built once per change of the vault content; `filter` is incremental so a
/// keystroke in `/` search at 100k credentials stays well under a frame.
public struct DomainIndex: Sendable {
    /// One row of the domain pane.
    public struct Domain: Sendable, Equatable {
        /// `server` or `server:port`.
        public var title: String
        /// Indexes into `records` of this domain's accounts, sorted by account.
        public var members: [Int]
        public var hasLocal: Bool
        public var hasShared: Bool
        fileprivate var key: String
    }

    public private(set) var records: [ShelfEntry]
    public private(set) var domains: [Domain]
    private var accountKeys: [String]
    /// Indexes into `domains` that match `query`, in display order.
    public private(set) var visible: [Int]
    public private(set) var query = ""

    public init(records: [ShelfEntry]) {
        self.records = records
        accountKeys = records.map { $0.account.lowercased() }
        var groups: [String: [Int]] = [:]
        for (i, record) in records.enumerated() {
            groups[record.serverWithPort, default: []].append(i)
        }
        let recs = records
        domains = groups.map { title, members in
            let sorted = members.sorted { recs[$0].account.localizedStandardCompare(recs[$1].account) == .orderedAscending }
            return Domain(title: title, members: sorted,
                          hasLocal: members.contains { recs[$0].store == .local },
                          hasShared: members.contains { recs[$0].store == .shared },
                          key: title.lowercased())
        }
        domains.sort { $0.key < $1.key }
        visible = Array(domains.indices)
    }

    /// Keeps the domains whose title or any account contains `newQuery` (case-insensitive).
    ///
    /// When `newQuery` contains the previous query, only the previous matches are searched.
    public mutating func filter(_ newQuery: String) {
        let needle = newQuery.lowercased()
        let candidates: [Int] = (!query.isEmpty && needle.contains(query.lowercased())) ? visible : Array(domains.indices)
        query = newQuery
        guard !needle.isEmpty else {
            visible = Array(domains.indices)
            return
        }
        visible = candidates.filter { matches(domain: $0, needle: needle) }
    }

    private func matches(domain index: Int, needle: String) -> Bool {
        let domain = domains[index]
        if domain.key.contains(needle) { return true }
        return domain.members.contains { accountKeys[$0].contains(needle) }
    }

    /// The accounts of visible domain `position` to show: all of them when the
    /// domain name matches the query, else only the matching accounts.
    public func accounts(ofVisible position: Int) -> [Int] {
        guard visible.indices.contains(position) else { return [] }
        let domain = domains[visible[position]]
        let needle = query.lowercased()
        if needle.isEmpty || domain.key.contains(needle) { return domain.members }
        return domain.members.filter { accountKeys[$0].contains(needle) }
    }

    /// The position in `visible` of the domain titled `title`, if shown.
    public func position(ofTitle title: String) -> Int? {
        visible.firstIndex { domains[$0].title == title }
    }
}
