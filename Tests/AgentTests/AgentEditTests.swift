import Foundation
import KeyshelfCredentials
import KeyshelfCrypto
import KeyshelfVault
import Testing
@testable import KeyshelfAgent

/// `keyshelf edit` as the agent's `edit` and `editGeneric` operations
/// (issue 15 item 3: an edit at 100k without decoding the vault): no master
/// password while unlocked, consent to overwrite relayed to the client, and
/// the same messages and exit codes as without the agent.
@Suite struct AgentEditTests {
    @Test func theAgentOverwritesAnotherItemOnlyAfterTheClientsConsent() throws {
        let h = try AgentHarness()
        defer { h.stop() }
        try h.check(h.run(["add", "example.com", "alice", "--password-stdin"], stdin: "alices\n"))
        try h.check(h.run(["add", "example.com", "bob", "--password-stdin"], stdin: "bobs\n"))
        try h.check(h.run(["unlock"]))
        let site = try ServerName(parsing: "example.com")
        let rename = ShelfOperation.edit(server: ServerPattern(site), account: "alice", filter: .both,
                                         changes: MetadataChanges(label: "Work", account: "bob"))

        let declined = ScriptedConsent([.declined])
        #expect(throws: KeychainError(.userCanceled, "")) { try h.perform(rename, consent: declined) }
        #expect(declined.requests == [.update(server: site, account: "bob")])
        #expect(try h.check(h.run(["get", "example.com", "bob", "--yes", "--no-agent"])).stdout == "bobs\n")

        let approved = ScriptedConsent([.approved])
        #expect(try h.perform(rename, consent: approved) == .edited(server: site, stores: [.shared]))
        #expect(approved.requests == [.update(server: site, account: "bob")])
        #expect(try h.check(h.run(["get", "example.com", "bob", "--yes", "--no-agent"])).stdout == "alices\n")
        // The replaced password is kept, as an update keeps it (hostile review: it was lost).
        let history = try h.check(h.run(["get", "example.com", "bob", "--history", "--yes", "--no-agent"])).stdout
        #expect(history.contains("bobs"), "\(history)")
        #expect(try h.run(["get", "example.com", "alice", "--yes", "--no-agent"]).status == 3)

        let moved = try ServerName(parsing: "moved.example:8443")
        let move = ShelfOperation.edit(server: ServerPattern(site), account: "bob", filter: .both,
                                       changes: MetadataChanges(server: moved, store: .local))
        #expect(try h.perform(move) == .edited(server: moved, stores: [.local]))
        #expect(try h.check(h.run(["list", "--no-agent"])).stdout == "moved.example:8443\tbob\tlocal\n")
    }

    @Test func editThroughTheUnlockedAgentNeedsNoPasswordAndSaysTheSame() throws {
        let h = try AgentHarness()
        defer { h.stop() }
        try h.check(h.run(["add", "plain.example:8443", "alice", "--local", "--password-stdin"], stdin: "s3cret\n"))
        try h.check(h.run(["add", "--service", "wifi", "home", "--password-stdin"], stdin: "hunter2\n"))
        try h.check(h.run(["unlock"]))

        // No master password is given: only the agent can do these.
        let labelled = try h.check(h.run(["edit", "plain.example:8443", "alice", "--label", "Work"], withPassword: false))
        let labelledDirect = try h.check(h.run(["edit", "plain.example:8443", "alice", "--label", "Work", "--no-agent"]))
        #expect(labelled.stderr == labelledDirect.stderr && labelled.stderr.contains("plain.example:8443"), "\(labelled)\n\(labelledDirect)")
        let notes = try h.check(h.run(["edit", "plain.example:8443", "alice", "--notes-stdin"], stdin: "line one\nline two\n", withPassword: false))
        #expect(notes.stderr.contains("now in the local store"), "\(notes)")
        let json = try h.check(h.run(["get", "plain.example:8443", "alice", "--json", "--no-agent"])).stdout
        let fields = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any]
        #expect(fields?["label"] as? String == "Work", "\(json)")
        #expect(fields?["notes"] as? String == "line one\nline two", "\(json)")

        let missing = try h.run(["edit", "plain.example:8443", "nobody", "--label", "x"], withPassword: false)
        let missingDirect = try h.run(["edit", "plain.example:8443", "nobody", "--label", "x", "--no-agent"])
        #expect(missing.status == 3 && missing.stderr == missingDirect.stderr, "\(missing)\n\(missingDirect)")

        let generic = try h.check(h.run(["edit", "--service", "wifi", "home", "--label", "Router"], withPassword: false))
        #expect(generic.stderr.contains("of service"), "\(generic)")
        let refused = try h.run(["edit", "--service", "wifi", "home", "--move-to", "local"], withPassword: false)
        let refusedDirect = try h.run(["edit", "--service", "wifi", "home", "--move-to", "local", "--no-agent"])
        #expect(refused.status == refusedDirect.status && refused.stderr == refusedDirect.stderr && refused.status != 0,
                "\(refused)\n\(refusedDirect)")
    }
}
