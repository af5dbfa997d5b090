import Foundation
import KeyshelfCrypto
import KeyshelfVault
import Testing
@testable import KeyshelfCredentials

/// The login flow's vault steps as a protocol (`LoginSteps`, issue 12 item 2),
/// and the rule that lets the agent run them: a consent left waiting for an
/// answer elsewhere saves nothing.
@Suite struct LoginStepsTests {
    /// Steps that record the calls and answer from fixed values.
    final class RecordingSteps: LoginSteps {
        var found: CredentialRecord?
        private(set) var calls: [String] = []
        init(found: CredentialRecord?) { self.found = found }
        func findCredential(server: ServerName, account: String?, passwordsOnly: Bool) throws -> CredentialRecord? {
            calls.append("find \(server) \(account ?? "-")")
            return found
        }
        func suggestedPassword(for server: ServerName) throws -> Secret {
            calls.append("suggest \(server)")
            return secret("abc-def-ghk-mnp")
        }
        func saveToBothStores(server: ServerName, account: String, password: Secret) throws -> SaveResult {
            calls.append("save \(account) \(password.unsafeString() ?? "")")
            return SaveResult(local: .added, shared: .added)
        }
        func keepLocally(server: ServerName, account: String, password: Secret) throws -> SaveResult {
            calls.append("keep \(account)")
            return SaveResult(local: .added, shared: .unchanged)
        }
    }

    /// Declines, and then says an answer is still awaited (the agent's relayed consent).
    final class WaitingConsent: Consent, @unchecked Sendable {
        private(set) var asked: [ConsentRequest] = []
        func ask(_ request: ConsentRequest) -> ConsentAnswer {
            asked.append(request)
            return .declined
        }
        var answersWithoutWaiting: Bool { true }
        var isWaitingForAnswer: Bool { !asked.isEmpty }
    }

    @Test func theFlowRunsThePromptAndCheckBetweenTheSteps() throws {
        let site = server("example.com")
        let refused = RecordingSteps(found: CredentialRecord(server: site, account: "alice", password: secret("old"), store: .local))
        let prompt = ScriptedPrompt([PromptedCredential(account: "alice", password: secret("new"))])
        let result = try LoginFlow(prompt: prompt, check: PasswordCheck(accepts: "new")).run(refused, server: site)
        #expect(refused.calls == ["find example.com -", "suggest example.com", "save alice new"])
        #expect(result.source == .prompt && result.saved == SaveResult(local: .added, shared: .added))
        #expect(prompt.calls.map(\.account) == ["alice"] && prompt.calls.map(\.failedAttempts) == [1])

        let shared = RecordingSteps(found: CredentialRecord(server: site, account: "bob", password: secret("pw"), store: .shared))
        let kept = try LoginFlow(prompt: ScriptedPrompt([])).run(shared, server: site, account: "bob")
        #expect(shared.calls == ["find example.com bob", "keep bob"])
        #expect(kept.source == .shared && kept.saved == SaveResult(local: .added, shared: .unchanged))
    }

    @Test func aConsentWaitingForAnAnswerSavesNothing() throws {
        let vault = MemoryVault(items: VaultContents(shared: [internetItem("example.com", "alice", "old", synchronizable: true)]))
        let consent = WaitingConsent()
        let keyshelf = try Keyshelf(vault: vault, consent: consent)
        // Directly a declined shared update still saves the local item; while the answer is awaited nothing is saved.
        #expect(throws: KeychainError(.userCanceled, "")) {
            try keyshelf.saveToBothStores(server: server("example.com"), account: "alice", password: secret("new"))
        }
        #expect(consent.asked == [.update(server: server("example.com"), account: "alice")])
        #expect(vault.saveCount == 0)
        let declined = try Keyshelf(vault: vault, consent: DeclineAll())
        #expect(try declined.saveToBothStores(server: server("example.com"), account: "alice", password: secret("new"))
                == SaveResult(local: .added, shared: nil))
        #expect(vault.saveCount == 1)
    }
}
