import Foundation
import KeyshelfCrypto
import KeyshelfVault
import Testing
@testable import KeyshelfCredentials

/// Accounts that sign in with Apple (DESIGN §13, docs/sign-in-with-apple.md).
@Suite struct SignInWithAppleTests {
    let site = server("shop.example")
    let relay = "x7k2@privaterelay.appleid.com"

    func shelf(local: [Item] = [], shared: [Item] = [], consent: any Consent = DeclineAll()) throws -> (Keyshelf, MemoryVault) {
        let vault = MemoryVault(items: VaultContents(local: local, shared: shared))
        return (try Keyshelf(vault: vault, consent: consent), vault)
    }

    func appleItem(_ account: String, synchronizable: Bool = true) -> Item {
        Item(account: account, server: site.host, synchronizable: synchronizable, password: nil,
             signInWithApple: AppleSignIn(hidesEmail: AppleSignIn.isRelayAddress(account), since: Date(timeIntervalSince1970: 1_000)))
    }

    @Test func addStoresAnAccountWithoutAPasswordAndMarksARelay() throws {
        let (keyshelf, vault) = try shelf()
        let since = Date(timeIntervalSince1970: 1_700_000_000)
        try keyshelf.addAppleAccount(server: site, account: relay, to: .shared, forwardingAddress: "me@example.net", since: since, label: "Shop")
        let item = try #require((try vault.loadItems()).shared.first)
        #expect(item.password == nil && !item.isDeleted && item.synchronizable && item.label == "Shop")
        #expect(item.signInWithApple == AppleSignIn(hidesEmail: true, forwardingAddress: "me@example.net", since: since))
        let entry = try #require(keyshelf.accounts(of: site).first)
        #expect(entry.record.signInWith == .apple)
        try keyshelf.addAppleAccount(server: site, account: "me@example.net", to: .local)
        #expect((try vault.loadItems()).local.first?.signInWithApple?.hidesEmail == false)
    }

    @Test func addRefusesADuplicateAndAForwardingAddressForAnEmailThatIsNotHidden() throws {
        let (keyshelf, _) = try shelf(shared: [internetItem("shop.example", relay, "pw", synchronizable: true)])
        #expect(throws: KeychainError(.duplicateItem, "")) { try keyshelf.addAppleAccount(server: site, account: relay, to: .shared) }
        #expect(throws: KeychainError(.param, "")) {
            try keyshelf.addAppleAccount(server: site, account: "me@example.net", to: .shared, forwardingAddress: "x@example.org")
        }
    }

    @Test func getSaysThereIsNoPasswordToRelease() throws {
        let consent = ScriptedConsent()
        let (keyshelf, _) = try shelf(shared: [appleItem(relay)], consent: consent)
        let error = try #require(throws: KeychainError.self) { try keyshelf.get(server: site) }
        #expect(error.status == .itemNotFound)
        #expect(error.reason.contains("signs in with Apple: there is no password to release"))
        #expect(consent.requests.isEmpty)
    }

    @Test func getReleasesThePasswordAccountBesideAnAppleOne() throws {
        let consent = ScriptedConsent([.approved])
        let (keyshelf, _) = try shelf(local: [appleItem("a@privaterelay.appleid.com", synchronizable: false)],
                                      shared: [appleItem(relay), internetItem("shop.example", "zed", "pw", synchronizable: true)],
                                      consent: consent)
        let record = try keyshelf.get(server: site)
        #expect(record.account == "zed" && record.password?.text == "pw")
        // The release sheet lists only accounts with a password.
        #expect(consent.requests == [.release(server: site, accounts: ["zed"])])
    }

    @Test func theLoginFlowReturnsTheAccountWithoutPromptOrCheck() throws {
        let (keyshelf, vault) = try shelf(shared: [appleItem(relay)], consent: ScriptedConsent())
        let prompt = ScriptedPrompt([])
        let check = PasswordCheck(accepts: "none")
        let result = try keyshelf.login(server: site, prompt: prompt, check: check)
        #expect(result.record.signInWith == .apple && result.record.password == nil)
        #expect(result.record.account == relay && result.source == .shared)
        #expect(prompt.calls.isEmpty && check.tried.isEmpty && vault.saveCount == 0)
    }

    @Test func passwordsOnlyPassesOverAppleAccounts() throws {
        let (keyshelf, _) = try shelf(local: [appleItem(relay, synchronizable: false)])
        let prompt = ScriptedPrompt([nil])
        #expect(throws: KeychainError(.userCanceled, "")) {
            try LoginFlow(prompt: prompt, saveOnSuccess: false, passwordsOnly: true).run(keyshelf, server: site)
        }
        #expect(prompt.calls.count == 1)
    }

    @Test func auditFindsNothingInAppleAccounts() throws {
        let http = server("http://shop.example")
        var insecure = appleItem(relay)
        insecure.protocol = "http"
        var other = appleItem("b@privaterelay.appleid.com")
        other.protocol = "http"
        let (keyshelf, _) = try shelf(shared: [insecure, other])
        let report = try keyshelf.audit(with: AuditEngine())
        #expect(report.findings.isEmpty && report.auditedCount == 2)
        #expect(keyshelf.accounts(of: http).count == 2)
    }

    @Test func noPasswordIsEverPutOnAnAppleAccount() throws {
        let (keyshelf, vault) = try shelf(local: [appleItem(relay, synchronizable: false)], consent: ApproveAll())
        #expect(throws: KeychainError(.duplicateItem, "")) {
            try keyshelf.add(server: site, account: relay, password: secret("pw"), to: .local)
        }
        let saved = try keyshelf.save(server: site, account: relay, password: secret("pw"))
        #expect(saved == SaveResult(local: .unchanged, shared: .unchanged))
        let entry = try #require(keyshelf.accounts(of: site).first)
        #expect(throws: KeychainError(.param, "")) { try keyshelf.update(entry, CredentialChanges(password: secret("pw"))) }
        #expect(throws: KeychainError(.itemNotFound, "")) { try keyshelf.reveal(entry) }
        let items = try vault.loadItems()
        #expect(items.local.allSatisfy { $0.password == nil } && items.shared.allSatisfy { $0.password == nil })
    }

    @Test func theGitHelpersEraseKeepsAppleAccounts() throws {
        let (keyshelf, vault) = try shelf(shared: [appleItem(relay)], consent: ApproveAll())
        let result = try keyshelf.erase(server: site, account: nil, password: nil)
        #expect(result.deleted.isEmpty)
        let items = try vault.loadItems()
        #expect(items.shared.first?.isDeleted == false)
    }
}
