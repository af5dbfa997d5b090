import Foundation
import KeyshelfCrypto
import KeyshelfVault
import Testing
@testable import KeyshelfCredentials

@Suite struct LoginFlowTests {
    let site = server("example.com")

    func shelf(local: [Item] = [], shared: [Item] = [], consent: any Consent = DeclineAll()) throws -> (Keyshelf, MemoryVault) {
        let vault = MemoryVault(items: VaultContents(local: local, shared: shared))
        return (try Keyshelf(vault: vault, consent: consent), vault)
    }

    @Test func localStoreFirstWithoutAnyPrompt() throws {
        let consent = ScriptedConsent()
        let (keyshelf, vault) = try shelf(
            local: [internetItem("example.com", "alice", "local-pw")],
            shared: [internetItem("example.com", "alice", "shared-pw", synchronizable: true)],
            consent: consent)
        let prompt = ScriptedPrompt([])
        let result = try keyshelf.login(server: site, prompt: prompt)
        #expect(result.source == .local)
        #expect(result.record.password?.text == "local-pw")
        #expect(result.saved == nil)
        #expect(prompt.calls.isEmpty)
        #expect(consent.requests.isEmpty)
        #expect(vault.saveCount == 0)
    }

    @Test func aGivenAccountNarrowsEveryStep() throws {
        let consent = ScriptedConsent([.approved])
        let (keyshelf, _) = try shelf(
            local: [internetItem("example.com", "alice", "a")],
            shared: [internetItem("example.com", "bob", "b", synchronizable: true)],
            consent: consent)
        let result = try keyshelf.login(server: site, account: "bob", prompt: ScriptedPrompt([]))
        #expect(result.source == .shared)
        #expect(result.record.account == "bob")
        #expect(consent.requests == [.release(server: site, accounts: ["bob"])])
        let prompt = ScriptedPrompt([nil])
        #expect(throws: KeychainError(.userCanceled, "")) { try keyshelf.login(server: site, account: "carol", prompt: prompt) }
        #expect(prompt.calls.map(\.account) == ["carol"])
    }

    @Test func sharedCredentialsSecondWithConsentAndPick() throws {
        let consent = ScriptedConsent([.chose(account: "bob")])
        let (keyshelf, _) = try shelf(shared: [
            internetItem("example.com", "alice", "a", synchronizable: true),
            internetItem("example.com", "bob", "b", synchronizable: true),
        ], consent: consent)
        let prompt = ScriptedPrompt([])
        let result = try keyshelf.login(server: site, prompt: prompt)
        #expect(consent.requests == [.release(server: site, accounts: ["alice", "bob"])])
        #expect(result.source == .shared)
        #expect(result.record.account == "bob")
        #expect(result.record.password?.text == "b")
        #expect(prompt.calls.isEmpty)
    }

    @Test func declinedReleaseFallsThroughToThePromptWhichOffersAGeneratedPassword() throws {
        let consent = ScriptedConsent([.declined])
        let (keyshelf, vault) = try shelf(shared: [internetItem("example.com", "alice", "a", synchronizable: true)], consent: consent)
        let prompt = ScriptedPrompt([PromptedCredential(account: "carol", password: secret("typed"))])
        let result = try keyshelf.login(server: site, prompt: prompt)
        #expect(prompt.calls.count == 1)
        #expect(prompt.calls[0].suggestion.byteCount == 15)
        #expect(result.source == .prompt)
        #expect(result.saved == SaveResult(local: .added, shared: .added))
        let items = try vault.loadItems()
        #expect(items.local.map(\.account) == ["carol"])
        #expect(Set(items.shared.map(\.account)) == ["alice", "carol"])
    }

    @Test func aRefusedCredentialSavesNothingAndReturnsToThePrompt() throws {
        let (keyshelf, vault) = try shelf()
        let prompt = ScriptedPrompt([
            PromptedCredential(account: "alice", password: secret("wrong")),
            PromptedCredential(account: "alice", password: secret("right")),
        ])
        let check = PasswordCheck(accepts: "right")
        let result = try keyshelf.login(server: site, prompt: prompt, check: check)
        #expect(check.tried == ["alice:wrong", "alice:right"])
        #expect(prompt.calls.map(\.failedAttempts) == [0, 1])
        #expect(prompt.calls[1].account == "alice")
        #expect(result.record.password?.text == "right")
        #expect(vault.saveCount == 1)
        let items = try vault.loadItems()
        #expect(items.local.compactMap { $0.password?.text } == ["right"])
        #expect(items.shared.compactMap { $0.password?.text } == ["right"])
    }

    @Test func aStoredCredentialTheCheckRefusesLeadsToThePromptAndUpdatesAfterConsent() throws {
        let consent = ScriptedConsent([.approved])
        let (keyshelf, vault) = try shelf(
            local: [internetItem("example.com", "alice", "stale")],
            shared: [internetItem("example.com", "alice", "stale", synchronizable: true)],
            consent: consent)
        let prompt = ScriptedPrompt([PromptedCredential(account: "alice", password: secret("fresh"))])
        let check = PasswordCheck(accepts: "fresh")
        let result = try keyshelf.login(server: site, prompt: prompt, check: check)
        #expect(check.tried == ["alice:stale", "alice:fresh"])
        #expect(prompt.calls.first?.account == "alice")
        #expect(prompt.calls.first?.failedAttempts == 1)
        // One question covers both stores.
        #expect(consent.requests == [.update(server: site, account: "alice")])
        #expect(result.saved == SaveResult(local: .updated, shared: .updated))
        let items = try vault.loadItems()
        #expect(items.local[0].password?.text == "fresh")
        #expect(items.shared[0].password?.text == "fresh")
    }

    @Test func decliningTheSharedUpdateLeavesTheSharedRecord() throws {
        let (keyshelf, vault) = try shelf(shared: [internetItem("example.com", "alice", "old", synchronizable: true)],
                                          consent: ScriptedConsent([.declined, .declined]))
        let prompt = ScriptedPrompt([PromptedCredential(account: "alice", password: secret("new"))])
        let result = try keyshelf.login(server: site, prompt: prompt)
        #expect(result.saved == SaveResult(local: .added, shared: nil))
        #expect(result.saved?.declined == true)
        #expect(try vault.loadItems().shared[0].password?.text == "old")
    }

    @Test func canceledPromptIsUserCanceledAndRepeatedRefusalIsAuthFailed() throws {
        let (keyshelf, vault) = try shelf()
        #expect(throws: KeychainError(.userCanceled, "")) {
            try keyshelf.login(server: site, prompt: ScriptedPrompt([nil]))
        }
        let wrong = PromptedCredential(account: "alice", password: secret("wrong"))
        #expect(throws: KeychainError(.authFailed, "")) {
            try keyshelf.login(server: site, prompt: ScriptedPrompt([wrong, wrong, wrong]), check: PasswordCheck(accepts: "right"))
        }
        #expect(vault.saveCount == 0)
    }

    @Test func withoutSavingForTheGitHelpersGet() throws {
        let (keyshelf, vault) = try shelf()
        let flow = LoginFlow(prompt: ScriptedPrompt([PromptedCredential(account: "alice", password: secret("pw"))]), saveOnSuccess: false)
        let result = try flow.run(keyshelf, server: site)
        #expect(result.saved == nil)
        #expect(vault.saveCount == 0)
    }

    @Test func commandCheckGetsTheCredentialOnStandardInput() throws {
        let check = CommandCheck(command: #"read -r account; read -r password; [ "$account" = alice ] && [ "$password" = 's3cret pw' ] && [ "$KEYSHELF_ACCOUNT" = alice ] && [ "$KEYSHELF_PORT" = 8443 ]"#)
        let site = server("example.com:8443")
        #expect(try check.accepts(server: site, account: "alice", password: secret("s3cret pw")))
        #expect(try !check.accepts(server: site, account: "alice", password: secret("other")))
        // A command that never reads its input must not kill us with SIGPIPE.
        let big = Secret(utf8: String(repeating: "x", count: 1 << 20))
        #expect(try !CommandCheck(command: "exit 1").accepts(server: site, account: "a", password: big))
        #expect(try CommandCheck(command: "exit 0").accepts(server: site, account: "a", password: big))
    }

    /// The check command's environment, as the kernel handed it to the shell
    /// (`/proc/$$/environ`), holds the account but never the password.
    @Test func theCheckCommandsEnvironmentHoldsNoPassword() throws {
        let file = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("keyshelf-check-env-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: file) }
        let password = "Zq7-env-Pw-9Xk"
        let check = CommandCheck(command: "cat /proc/$$/environ > '\(file.path)'")
        #expect(try check.accepts(server: server("example.com"), account: "alice", password: secret(password)))
        let environment = try Data(contentsOf: file).split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
        #expect(environment.contains("KEYSHELF_ACCOUNT=alice"), "the command's environment was not read")
        #expect(!environment.contains { $0.contains(password) }, "the password is in the check command's environment")
    }
}
