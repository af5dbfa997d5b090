import Foundation
import KeyshelfCrypto
import KeyshelfVault
import Testing
@testable import KeyshelfCredentials

/// The add-or-update-with-consent rule is one rule for both stores
/// (`PasswordUpdateConsent`): the same question, the same decline, the same
/// OAuth exemption, whichever store holds the password.
@Suite struct PasswordUpdateConsentTests {
    let site = server("example.com")

    /// The vault holding alice's "one" in `store`, with an OAuth token when `oauth`.
    func vault(holdingIn store: Store, oauth: Bool = false) -> MemoryVault {
        var item = internetItem("example.com", "alice", "one", synchronizable: store == .shared)
        if oauth { item.passwordExpiryUTC = 1_000 }
        var items = VaultContents()
        items[store].append(item)
        return MemoryVault(items: items)
    }

    /// What `add` of another password to `store` asked and threw, declined.
    func declinedAdd(to store: Store) throws -> (asked: [ConsentRequest], message: String) {
        let vault = vault(holdingIn: store)
        let consent = ScriptedConsent()
        let keyshelf = try Keyshelf(vault: vault, consent: consent)
        let saves = vault.saveCount
        let error = try #require(throws: KeychainError.self) {
            try keyshelf.add(server: site, account: "alice", password: secret("two"), to: store)
        }
        #expect(error.status == .userCanceled)
        #expect(vault.saveCount == saves)
        #expect(try vault.loadItems()[store][0].password?.text == "one")
        return (consent.requests, error.description)
    }

    @Test func bothStoresAskTheSameQuestionAndDeclineWithTheSameMessage() throws {
        let local = try declinedAdd(to: .local)
        let shared = try declinedAdd(to: .shared)
        #expect(local.asked == [.update(server: site, account: "alice")])
        #expect(shared.asked == local.asked)
        #expect(local.message == "updating the password for \"alice\" on example.com was declined (errSecUserCanceled -128)")
        #expect(shared.message == local.message)
    }

    @Test(arguments: Store.allCases)
    func anApprovedUpdateReplacesThePasswordAndKeepsTheOldInTheHistory(store: Store) throws {
        let vault = vault(holdingIn: store)
        let consent = ScriptedConsent(otherwise: .approved)
        let keyshelf = try Keyshelf(vault: vault, consent: consent)
        #expect(try keyshelf.add(server: site, account: "alice", password: secret("two"), to: store, comment: "new notes") == .updated)
        let item = try vault.loadItems()[store][0]
        #expect(item.password?.text == "two")
        #expect(item.comment == "new notes")
        #expect(item.passwordHistory.map(\.password.text) == ["one"])
        #expect(consent.requests == [.update(server: site, account: "alice")])
    }

    @Test func saveAsksOnceAndADeclineLeavesBothStores() throws {
        var items = VaultContents()
        items.local = [internetItem("example.com", "alice", "one")]
        items.shared = [internetItem("example.com", "alice", "one", synchronizable: true)]
        let vault = MemoryVault(items: items)
        let consent = ScriptedConsent()
        let keyshelf = try Keyshelf(vault: vault, consent: consent)
        #expect(try keyshelf.save(server: site, account: "alice", password: secret("two")) == SaveResult(local: nil, shared: nil))
        #expect(consent.requests == [.update(server: site, account: "alice")])
        #expect(try vault.loadItems().local[0].password?.text == "one")
        #expect(try vault.loadItems().shared[0].password?.text == "one")
    }

    @Test(arguments: Store.allCases)
    func rotatingAnOAuthTokenAsksNobodyInEitherStore(store: Store) throws {
        let vault = vault(holdingIn: store, oauth: true)
        let consent = ScriptedConsent()
        let keyshelf = try Keyshelf(vault: vault, consent: consent)
        let result = try keyshelf.save(server: site, account: "alice", password: secret("two"),
                                       oauth: OAuthAttributes(passwordExpiryUTC: 2_000))
        #expect(result[store] == .updated)
        #expect(consent.requests.isEmpty)
        #expect(try vault.loadItems()[store][0].passwordExpiryUTC == 2_000)
    }
}
