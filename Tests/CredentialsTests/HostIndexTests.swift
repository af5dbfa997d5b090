import Foundation
import KeyshelfCrypto
import KeyshelfVault
import Testing
@testable import KeyshelfCredentials

/// `HostIndex` (the lookup of one server's items) and the reads that go
/// through it: every item a query naming a host can match, in store order,
/// and never an item of a snapshot a write replaced.
@Suite struct HostIndexTests {
    /// Many hosts sharing buckets, several items per host spread over the
    /// store, tombstones and generic passwords among them.
    @Test func positionsAreEveryItemOfTheHostInStoreOrder() {
        var items: [Item] = []
        for i in 0..<600 {
            var item = internetItem("h\(i % 97).example", "user\(i)", "p\(i)")
            if i % 11 == 0 { item.isDeleted = true }
            items.append(item)
            if i % 50 == 0 { items.append(Item(itemClass: .genericPassword, account: "a\(i)", service: "h\(i % 97).example", password: secret("g"))) }
        }
        let index = HostIndex(items)
        for host in (0..<97).map({ "h\($0).example" }) + ["absent.example", ""] {
            #expect(index.positions(of: host, in: items) == items.indices.filter { items[$0].server == host }, "\(host)")
        }
        #expect(HostIndex([]).positions(of: "h1.example", in: []).isEmpty)
    }

    /// `get` after a write reads the new snapshot: an account added, changed
    /// or deleted after the first lookup built the index.
    @Test func getSeesEveryWriteAfterTheIndexWasBuilt() throws {
        let vault = MemoryVault(items: VaultContents(local: (0..<40).map { internetItem("site\($0).example", "u\($0)", "p\($0)") }))
        let shelf = try Keyshelf(vault: vault, consent: ScriptedConsent(otherwise: .approved))
        let pattern = try ServerPattern(parsing: "new.example")
        #expect(try shelf.get(server: ServerPattern(parsing: "site7.example")).password?.text == "p7")
        #expect(throws: KeychainError.self) { try shelf.get(server: pattern) }

        try shelf.add(server: server("new.example"), account: "fresh", password: secret("one"), to: .local)
        #expect(try shelf.get(server: pattern).password?.text == "one")
        _ = try shelf.changePassword(secret("two"), server: pattern, account: "fresh", in: .both, newItems: .local)
        #expect(try shelf.get(server: pattern, account: "fresh").password?.text == "two")
        #expect(shelf.accounts(of: pattern).map(\.account) == ["fresh"])
        try shelf.delete(server: server("new.example"), account: "fresh")
        #expect(throws: KeychainError.self) { try shelf.get(server: pattern) }
        #expect(shelf.accounts(of: pattern).isEmpty)
        #expect(try shelf.get(server: ServerPattern(parsing: "site39.example")).password?.text == "p39")
    }
}
