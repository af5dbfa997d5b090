import Foundation
import KeyshelfCrypto
import KeyshelfVault
import Testing
@testable import KeyshelfCredentials

/// A long-lived facade (the agent's) over a vault that others change too.
@Suite struct KeyshelfRefreshTests {
    let site = server("example.com")

    @Test func refreshPicksUpChangesMadeElsewhereAndOnlyThen() throws {
        let vault = MemoryVault(items: VaultContents(local: [internetItem("example.com", "alice", "a")]))
        let keyshelf = try Keyshelf(vault: vault)
        #expect(keyshelf.entries().map(\.account) == ["alice"])
        try vault.modifyItems { $0.local.append(internetItem("example.com", "bob", "b")) }
        #expect(keyshelf.entries().map(\.account) == ["alice"], "the snapshot stays until refreshed")
        try keyshelf.refresh()
        #expect(keyshelf.entries().map(\.account) == ["alice", "bob"])
        #expect(keyshelf.search("BOB").map(\.account) == ["bob"])
        try keyshelf.refresh()
        #expect(keyshelf.entries().count == 2)
    }

    @Test(arguments: [false, true])
    func aDeclinedChangeKeepsEveryItemListed(policyWaits: Bool) throws {
        let items = VaultContents(local: [internetItem("example.com", "alice", "a"), internetItem("other.example", "bob", "b")],
                                  shared: [internetItem("example.com", "carol", "c", synchronizable: true)])
        let vault = MemoryVault(items: items)
        // A scripted dialog gets a dry run first; a fixed policy is asked inside the write only.
        let consent: any Consent = policyWaits ? ScriptedConsent([.declined]) : DeclineAll()
        let keyshelf = try Keyshelf(vault: vault, consent: consent)
        #expect(throws: KeychainError(.userCanceled, "")) {
            try keyshelf.add(server: site, account: "carol", password: secret("other"), to: .shared)
        }
        #expect(keyshelf.entries().count == 3)
        #expect(try keyshelf.get(server: site, account: "alice").password == secret("a"))
        #expect(try vault.loadItems().shared[0].password == secret("c"))
    }

    @Test func aChangeThroughTheFacadeIsListedAtOnce() throws {
        let vault = MemoryVault(items: VaultContents(shared: [internetItem("example.com", "alice", "a", synchronizable: true)]))
        let keyshelf = try Keyshelf(vault: vault, consent: ApproveAll())
        #expect(try keyshelf.add(server: site, account: "bob", password: secret("b"), to: .shared) == .added)
        #expect(try keyshelf.add(server: site, account: "alice", password: secret("new"), to: .shared) == .updated)
        #expect(keyshelf.accounts(of: site).map(\.account) == ["alice", "bob"])
        try keyshelf.refresh()
        #expect(try keyshelf.get(server: site, account: "alice").password == secret("new"))
    }
}
