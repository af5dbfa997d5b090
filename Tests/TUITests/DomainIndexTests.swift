import Foundation
import Testing
import KeyshelfCredentials
import KeyshelfCrypto
import KeyshelfVault
@testable import KeyshelfTUI

/// The grouping of records into domains: runs of one domain, looked up once,
/// with records sharing their domain's `Place` (issue 15 item 3, first frame at 100k).
@Suite struct DomainIndexTests {
    static let date = Date(timeIntervalSince1970: 1_700_000_000)

    static func record(_ server: String, _ account: String, _ store: Store, scheme: String = "https") -> ShelfEntry {
        ShelfEntry(server: server, domain: .server(ServerName(host: server, port: 0, scheme: scheme)),
                   account: account, store: store, creationDate: date)
    }

    @Test func aDomainComingBackAfterAnotherIsStillOneDomainAndSchemesStayApart() {
        let records = [Self.record("a.example", "x", .local), Self.record("a.example", "y", .local),
                       Self.record("b.example", "z", .shared), Self.record("a.example", "w", .shared),
                       Self.record("a.example", "v", .local, scheme: "http")]
        let index = DomainIndex(records: records)
        #expect(index.domains.map(\.title) == ["a.example", "b.example", "http://a.example"])
        #expect(index.domains.map(\.members) == [[0, 1, 3], [2], [4]])
        #expect(index.domains.map(\.hasLocal) == [true, false, true])
        #expect(index.domains.map(\.hasShared) == [true, true, false])
        #expect(index.visible == [0, 1, 2])
        var filtered = index
        filtered.filter(matching: [3])
        #expect(filtered.visible == [0] && filtered.accounts(ofVisible: 0) == [3])
    }

    /// Sorted runs (the facade's order) need no table; the order is strict and agrees with `==`.
    @Test func sortedDomainsAreGroupedWithoutATableAndTheirOrderIsStrict() {
        let http = ShelfDomain.server(ServerName(host: "a.example", port: 0, scheme: "http"))
        let https = ShelfDomain.server(ServerName(host: "a.example", port: 0))
        let service = ShelfDomain.service("a.example")
        #expect(ShelfDomain.precedes(http, https) && !ShelfDomain.precedes(https, http))
        #expect(!ShelfDomain.precedes(https, https) && !ShelfDomain.precedes(service, service))
        #expect(ShelfDomain.precedes(https, service) && !ShelfDomain.precedes(service, https))
        let records = [Self.record("a.example", "v", .local, scheme: "http"), Self.record("a.example", "x", .local),
                       Self.record("a.example", "y", .shared), Self.record("b.example", "z", .shared),
                       ShelfEntry(server: "a.example", domain: service, account: "ci", store: .local, creationDate: Self.date)]
        let index = DomainIndex(records: records)
        #expect(index.domains.map(\.title) == ["http://a.example", "a.example", "b.example", "service:a.example"])
        #expect(index.domains.map(\.members) == [[0], [1, 2], [3], [4]])
    }

    @Test func recordsOfTheFacadeShareTheirDomainsPlaceAndCompareByValue() throws {
        let vault = MemoryVault()
        let keyshelf = try Keyshelf(vault: vault, consent: ApproveAll())
        for account in ["anna", "bernd"] {
            try keyshelf.add(server: ServerName(parsing: "shop.example"), account: account, password: Secret(utf8: "pw-\(account)"), to: .local)
        }
        try keyshelf.add(server: ServerName(parsing: "git.example:8443"), account: "ci", password: Secret(utf8: "pw-ci"), to: .local)
        let records = try KeyshelfShelf(vault: vault).records()
        #expect(records.map(\.account) == ["ci", "anna", "bernd"])
        #expect(records[1].place === records[2].place)
        #expect(records[0].place !== records[1].place)
        #expect(records[0].serverWithPort == "git.example:8443" && records[0].port == 8443 && records[1].server == "shop.example")
        // Equal by value, whether or not the place is shared.
        let copy = ShelfEntry(id: records[1].id, server: "shop.example", serverWithPort: "shop.example",
                              domain: records[1].domain, account: "anna", store: .local, creationDate: records[1].creationDate,
                              modificationDate: records[1].modificationDate)
        #expect(copy == records[1])
        #expect(copy != records[2])
        #expect(ShelfDomain.server(ServerName(host: "shop.example", port: 0)) == records[1].domain)
        #expect(ShelfDomain.service("shop.example") != records[1].domain)
    }
}
