import Foundation
import KeyshelfCredentials
import KeyshelfCrypto
import KeyshelfVault
import Testing
@testable import KeyshelfAgent

/// `keyshelf rm` as the agent's `delete` operation (issue 12 item 2): no
/// master password while unlocked, consent relayed to the client exactly as
/// for `add`, and the same messages and exit codes as without the agent.
@Suite struct AgentDeleteTests {
    @Test func theAgentDeletesOnlyAfterTheClientsConsent() throws {
        let h = try AgentHarness()
        defer { h.stop() }
        try h.check(h.run(["add", "example.com", "alice", "--password-stdin"], stdin: "s3cret\n"))
        try h.check(h.run(["add", "example.com", "alice", "--local", "--password-stdin", "--yes"], stdin: "s3cret\n"))
        try h.check(h.run(["unlock"]))
        let site = try ServerName(parsing: "example.com")
        let delete = ShelfOperation.delete(server: ServerPattern(site), account: "alice", filter: .both)

        let declined = ScriptedConsent([.declined])
        #expect(throws: KeychainError(.userCanceled, "")) { try h.perform(delete, consent: declined) }
        #expect(declined.requests == [.delete(server: site, account: "alice")])
        #expect(try h.check(h.run(["get", "example.com", "alice", "--local", "--no-agent"])).stdout == "s3cret\n")

        let approved = ScriptedConsent([.approved])
        let result = try h.perform(delete, consent: approved)
        #expect(result == .deleted(server: site, stores: [.local, .shared]))
        #expect(approved.requests == [.delete(server: site, account: "alice")])
        #expect(throws: KeychainError(.itemNotFound, "")) { try h.perform(delete, approveAll: true) }
    }

    @Test func rmThroughTheUnlockedAgentNeedsNoPasswordAndAsksAsBefore() throws {
        let h = try AgentHarness()
        defer { h.stop() }
        try h.check(h.run(["add", "example.com", "alice", "--local", "--password-stdin"], stdin: "s3cret\n"))
        try h.check(h.run(["add", "plain.example:8443", "bob", "--password-stdin"], stdin: "other\n"))
        try h.check(h.run(["unlock"]))

        // No terminal and no --yes: the consent dialog cannot be answered, so it declines, as without the agent.
        let declinedViaAgent = try h.run(["rm", "example.com", "alice"], withPassword: false)
        let declinedDirect = try h.run(["rm", "example.com", "alice", "--no-agent"])
        #expect(declinedViaAgent.status == 4, "\(declinedViaAgent)")
        #expect(declinedViaAgent.status == declinedDirect.status && declinedViaAgent.stderr == declinedDirect.stderr,
                "\(declinedViaAgent)\n\(declinedDirect)")
        #expect(try h.check(h.run(["get", "example.com", "alice", "--no-agent"])).stdout == "s3cret\n")

        let missingViaAgent = try h.run(["rm", "example.com", "nobody", "--yes"], withPassword: false)
        let missingDirect = try h.run(["rm", "example.com", "nobody", "--yes", "--no-agent"])
        #expect(missingViaAgent.status == 3, "\(missingViaAgent)")
        #expect(missingViaAgent.stderr == missingDirect.stderr, "\(missingViaAgent)\n\(missingDirect)")

        let deleted = try h.check(h.run(["rm", "example.com", "alice", "--yes"], withPassword: false))
        #expect(deleted.stderr.contains("deleted the password for"), "\(deleted)")
        #expect(deleted.stderr.contains("from the local store"), "\(deleted)")
        #expect(try h.run(["get", "example.com", "alice", "--no-agent"]).status == 3)
        // A scheme-less SERVER resolves to the saved server, port included.
        let other = try h.check(h.run(["rm", "plain.example:8443", "bob", "--yes"], withPassword: false))
        #expect(other.stderr.contains("plain.example:8443") && other.stderr.contains("from the shared credentials"), "\(other)")
        #expect(try !h.run(["list", "--no-agent"]).stdout.contains("plain.example"))
    }

    @Test func rmOfAGenericPasswordThroughTheAgent() throws {
        let h = try AgentHarness()
        defer { h.stop() }
        try h.check(h.run(["add", "--service", "wifi", "home", "--password-stdin"], stdin: "hunter2\n"))
        try h.check(h.run(["unlock"]))
        let declined = ScriptedConsent([.declined])
        #expect(throws: KeychainError(.userCanceled, "")) { try h.perform(.deleteGeneric(service: "wifi", account: "home"), consent: declined) }
        #expect(declined.requests == [.deleteService(service: "wifi", account: "home")])

        let declinedViaAgent = try h.run(["rm", "--service", "wifi", "home"], withPassword: false)
        let declinedDirect = try h.run(["rm", "--service", "wifi", "home", "--no-agent"])
        #expect(declinedViaAgent.status == 4 && declinedViaAgent.stderr == declinedDirect.stderr, "\(declinedViaAgent)\n\(declinedDirect)")
        let deleted = try h.check(h.run(["rm", "--service", "wifi", "home", "--yes"], withPassword: false))
        #expect(deleted.stderr.contains("of service") && deleted.stderr.contains("wifi"), "\(deleted)")
        let missingViaAgent = try h.run(["rm", "--service", "wifi", "home", "--yes"], withPassword: false)
        let missingDirect = try h.run(["rm", "--service", "wifi", "home", "--yes", "--no-agent"])
        #expect(missingViaAgent.status == 3 && missingViaAgent.stderr == missingDirect.stderr, "\(missingViaAgent)\n\(missingDirect)")
    }
}
