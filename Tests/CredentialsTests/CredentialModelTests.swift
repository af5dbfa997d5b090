import Foundation
import KeyshelfCrypto
import KeyshelfVault
import Testing
@testable import KeyshelfCredentials

/// Issue 13 rules 1–3 and 6 in the domain layer (docs/credentials.md,
/// "The credential model"): scheme-aware servers, a password change in every
/// store, the login flow keeping a shared credential locally, `get` never
/// choosing among accounts silently.
@Suite struct CredentialModelTests {
    func shelf(local: [Item] = [], shared: [Item] = [], consent: any Consent = DeclineAll()) throws -> (Keyshelf, MemoryVault) {
        let vault = MemoryVault(items: VaultContents(local: local, shared: shared))
        return (try Keyshelf(vault: vault, consent: consent), vault)
    }

    func pattern(_ text: String) -> ServerPattern { try! ServerPattern(parsing: text) }

    // MARK: Rule 1: servers keep their scheme

    @Test func aSchemelessServerMatchesEveryProtocolAndASchemeOnlyItsOwn() throws {
        let (keyshelf, _) = try shelf(local: [
            internetItem("127.0.0.1", "alice", "plain", port: 8765, scheme: "http"),
            internetItem("git.example.com", "bob", "tls"),
            internetItem("git.example.com", "carol", "old", scheme: "http"),
        ])
        #expect(try keyshelf.get(server: pattern("127.0.0.1:8765"), account: "alice").password?.text == "plain")
        #expect(try keyshelf.get(server: pattern("http://127.0.0.1:8765"), account: "alice").password?.text == "plain")
        #expect(throws: KeychainError(.itemNotFound, "")) { try keyshelf.get(server: pattern("https://127.0.0.1:8765"), account: "alice") }
        #expect(try keyshelf.get(server: pattern("git.example.com"), account: "carol").server.scheme == "http")
        #expect(throws: KeychainError(.itemNotFound, "")) { try keyshelf.get(server: pattern("https://git.example.com"), account: "carol") }
        #expect(keyshelf.accounts(of: pattern("git.example.com")).map(\.server.qualified) == ["http://git.example.com", "git.example.com"])
        #expect(keyshelf.accounts(of: pattern("https://git.example.com")).map(\.account) == ["bob"])
        // A port left out is each protocol's default; a given one is the port actually used.
        #expect(keyshelf.accounts(of: pattern("127.0.0.1")).isEmpty)
        #expect(keyshelf.accounts(of: pattern("git.example.com:80")).map(\.account) == ["carol"])
    }

    @Test func whatTheListingPrintsIsWhatALookupAccepts() throws {
        let (keyshelf, _) = try shelf(local: [
            internetItem("127.0.0.1", "alice", "a", port: 8765, scheme: "http"),
            internetItem("bücher.example", "bob", "b", scheme: "http"),
            internetItem("example.com", "carol", "c", port: 8443),
        ])
        for entry in keyshelf.entries() {
            let found = try keyshelf.get(server: pattern(entry.server.qualified), account: entry.account)
            #expect(found.server == entry.server, "\(entry.server.qualified)")
        }
        #expect(keyshelf.entries().map(\.server.qualified) == ["http://127.0.0.1:8765", "http://bücher.example", "example.com:8443"])
    }

    @Test func oneAccountAtSeveralProtocolsIsAUsageErrorNamingThem() throws {
        let (keyshelf, _) = try shelf(local: [
            internetItem("git.example.com", "alice", "tls"),
            internetItem("git.example.com", "alice", "plain", scheme: "http"),
        ])
        do {
            _ = try keyshelf.get(server: pattern("git.example.com"), account: "alice")
            Issue.record("a scheme-less lookup picked one protocol")
        } catch let error as KeychainError {
            #expect(error.status == .param)
            #expect(error.reason.contains("http://git.example.com") && error.reason.contains("git.example.com,"), "\(error.reason)")
        }
        #expect(throws: KeychainError(.param, "")) { try keyshelf.server(matching: pattern("git.example.com"), account: "alice") }
        #expect(try keyshelf.get(server: pattern("http://git.example.com"), account: "alice").password?.text == "plain")
        #expect(try keyshelf.get(server: pattern("https://git.example.com"), account: "alice").password?.text == "tls")
    }

    @Test func anExactServerStillMatchesOnlyItsScheme() throws {
        let (keyshelf, _) = try shelf(local: [internetItem("git.example.com", "alice", "plain", scheme: "http")])
        #expect(throws: KeychainError(.itemNotFound, "")) { try keyshelf.get(server: server("git.example.com"), account: "alice") }
        #expect(try keyshelf.get(server: server("http://git.example.com"), account: "alice").password?.text == "plain")
    }

    // MARK: Rule 2: a password change updates every store that holds the account

    @Test func aChangeUpdatesBothStoresWithOneConsent() throws {
        let consent = ScriptedConsent([.approved])
        let (keyshelf, vault) = try shelf(
            local: [internetItem("example.com", "alice", "old")],
            shared: [internetItem("example.com", "alice", "old", synchronizable: true)], consent: consent)
        let report = try keyshelf.changePassword(secret("new"), server: pattern("example.com"), account: "alice")
        #expect(report == PasswordChangeReport(server: server("example.com"), local: .updated, shared: .updated))
        #expect(consent.requests == [.update(server: server("example.com"), account: "alice")])
        #expect((try vault.loadItems()).local[0].password?.text == "new")
        #expect((try vault.loadItems()).shared[0].password?.text == "new")
        #expect(try keyshelf.get(server: server("example.com"), account: "alice").password?.text == "new")
    }

    @Test func aDeclinedChangeChangesNoStore() throws {
        let (keyshelf, vault) = try shelf(
            local: [internetItem("example.com", "alice", "old")],
            shared: [internetItem("example.com", "alice", "other", synchronizable: true)], consent: ScriptedConsent([.declined]))
        #expect(throws: KeychainError(.userCanceled, "")) {
            try keyshelf.changePassword(secret("new"), server: pattern("example.com"), account: "alice")
        }
        #expect((try vault.loadItems()).local[0].password?.text == "old")
        #expect((try vault.loadItems()).shared[0].password?.text == "other")
    }

    @Test func localOrSharedNarrowsTheChangeAndNewAccountsGoToTheSharedStore() throws {
        let (keyshelf, vault) = try shelf(
            local: [internetItem("example.com", "alice", "old")],
            shared: [internetItem("example.com", "alice", "old", synchronizable: true)], consent: ApproveAll())
        let local = try keyshelf.changePassword(secret("new"), server: pattern("example.com"), account: "alice", in: .local)
        #expect(local.stores == [.local])
        #expect((try vault.loadItems()).shared[0].password?.text == "old")
        let fresh = try keyshelf.changePassword(secret("pw"), server: pattern("example.com"), account: "bob")
        #expect(fresh == PasswordChangeReport(server: server("example.com"), shared: .added))
        let onlyLocal = try keyshelf.changePassword(secret("pw"), server: pattern("example.com"), account: "carol", newItems: .local)
        #expect(onlyLocal.stores == [.local])
        // A store that does not hold the account is not written: the change stays where the account is.
        let held = try keyshelf.changePassword(secret("pw2"), server: pattern("example.com"), account: "carol")
        #expect(held == PasswordChangeReport(server: server("example.com"), local: .updated))
    }

    @Test func aSchemelessChangeUpdatesTheProtocolTheAccountIsSavedFor() throws {
        let (keyshelf, vault) = try shelf(local: [internetItem("127.0.0.1", "alice", "old", port: 8765, scheme: "http")], consent: ApproveAll())
        let report = try keyshelf.changePassword(secret("new"), server: pattern("127.0.0.1:8765"), account: "alice")
        #expect(report.server.qualified == "http://127.0.0.1:8765")
        #expect(report.local == .updated)
        #expect((try vault.loadItems()).local.count == 1)
    }

    @Test func editingAPasswordInOneStoreUpdatesTheOtherStoresCopy() throws {
        let consent = ScriptedConsent([.approved])
        let (keyshelf, vault) = try shelf(
            local: [internetItem("example.com", "alice", "old")],
            shared: [internetItem("example.com", "alice", "old", synchronizable: true)], consent: consent)
        let entry = keyshelf.accounts(of: server("example.com"), in: .shared)[0]
        try keyshelf.update(entry, CredentialChanges(password: secret("new")))
        #expect(consent.requests.count == 1)
        #expect((try vault.loadItems()).local[0].password?.text == "new")
        #expect((try vault.loadItems()).shared[0].password?.text == "new")
    }

    // MARK: Rule 3: a shared credential that worked is kept locally

    @Test func aSharedCredentialThatWorkedIsSavedToTheLocalStore() throws {
        let (keyshelf, vault) = try shelf(shared: [internetItem("example.com", "alice", "pw", synchronizable: true)],
                                          consent: ScriptedConsent([.approved]))
        let result = try keyshelf.login(server: server("example.com"), prompt: ScriptedPrompt([]), check: PasswordCheck(accepts: "pw"))
        #expect(result.source == .shared)
        #expect(result.saved == SaveResult(local: .added, shared: .unchanged))
        #expect((try vault.loadItems()).local.map(\.account) == ["alice"])
        #expect((try vault.loadItems()).local[0].password?.text == "pw")
        #expect(!(try vault.loadItems()).local[0].synchronizable)
    }

    @Test func aRefusedSharedCredentialAndALocalOneAreNotCopied() throws {
        let (refusing, refusedVault) = try shelf(shared: [internetItem("example.com", "alice", "stale", synchronizable: true)],
                                                 consent: ScriptedConsent([.approved]))
        _ = try? refusing.login(server: server("example.com"), prompt: ScriptedPrompt([nil]), check: PasswordCheck(accepts: "other"))
        #expect((try refusedVault.loadItems()).local.isEmpty)
        let (keyshelf, vault) = try shelf(local: [internetItem("example.com", "alice", "pw", accessible: .whenUnlockedThisDeviceOnly)])
        let result = try keyshelf.login(server: server("example.com"), prompt: ScriptedPrompt([]))
        #expect(result.source == .local && result.saved == nil)
        #expect((try vault.loadItems()).shared.isEmpty)
    }

    // MARK: Rule 6: several accounts are never chosen silently

    @Test func severalAccountsAreChosenInTheSheetOrRefused() throws {
        let items = [internetItem("example.com", "alice", "a"), internetItem("example.com", "bob", "b")]
        let shared = [internetItem("example.com", "carol", "c", synchronizable: true)]
        let site = server("example.com")
        let (approving, _) = try shelf(local: items, shared: shared, consent: ApproveAll())
        do {
            _ = try approving.get(server: site)
            Issue.record("--yes picked an account")
        } catch let error as KeychainError {
            #expect(error.status == .param)
            #expect(error.reason.contains("\"alice\", \"bob\", \"carol\""), "\(error.reason)")
        }
        let picking = ScriptedConsent([.chose(account: "carol")])
        let (keyshelf, _) = try shelf(local: items, shared: shared, consent: picking)
        #expect(try keyshelf.get(server: site).password?.text == "c")
        #expect(picking.requests == [.release(server: site, accounts: ["alice", "bob", "carol"])], "the choice is the release's consent")
        let (declining, _) = try shelf(local: items, consent: ScriptedConsent([.declined]))
        #expect(throws: KeychainError(.userCanceled, "")) { try declining.get(server: site) }
        // One account: no sheet for a local item.
        let quiet = ScriptedConsent()
        let (single, _) = try shelf(local: [items[0]], consent: quiet)
        #expect(try single.get(server: site).account == "alice")
        #expect(quiet.requests.isEmpty)
    }
}
