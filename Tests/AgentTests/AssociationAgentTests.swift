import Foundation
import KeyshelfTestSupport
import Testing

/// Issue 18: the association gate of `get --client` and `credential --client git`
/// holds while an agent is unlocked, and the release needs no master password
/// (every gated run here has no `$KEYSHELF_PASSWORD_FILE`, so only the agent opens the vault).
@Suite struct AssociationAgentTests {
    private func unlockedVault() throws -> AgentHarness {
        let h = try AgentHarness()
        try h.check(h.run(["add", "git.example.com", "alice", "--password-stdin"], stdin: "git-pw\n"))
        try h.check(h.run(["add", "other.example.com", "bob", "--password-stdin"], stdin: "other-pw\n"))
        let declared = try h.check(h.run(["associate", "git", "git.example.com"]))
        #expect(declared.stderr.contains("declared"), "\(declared)")
        try h.check(h.run(["unlock"]))
        return h
    }

    @Test func associatedDomainIsReleasedWithoutMasterPassword() throws {
        let h = try unlockedVault()
        defer { h.stop() }
        let got = try h.run(["get", "git.example.com", "alice", "--client", "git", "--yes"], withPassword: false)
        #expect(got.status == 0 && got.stdout == "git-pw\n", "\(got)")
        #expect(try h.status()["unlocked"] as? Bool == true)
        #expect(!got.stderr.lowercased().contains("master password"), "\(got)")
    }

    @Test func unassociatedDomainIsRefusedThoughPlainGetSucceeds() throws {
        let h = try unlockedVault()
        defer { h.stop() }
        let plain = try h.run(["get", "other.example.com", "bob", "--yes"], withPassword: false)
        #expect(plain.status == 0 && plain.stdout == "other-pw\n", "\(plain)")
        let refused = try h.run(["get", "other.example.com", "bob", "--client", "git", "--yes"], withPassword: false)
        #expect(refused.status != 0 && refused.stdout.isEmpty, "\(refused)")
        #expect(!refused.stderr.contains("other-pw"), "\(refused)")
        #expect(refused.stderr.contains(#""git" is not associated with other.example.com"#)
                    && refused.stderr.contains("keyshelf associate git other.example.com"),
                "\(refused)")
    }

    @Test func gitHelperGivesNothingForUnassociatedHost() throws {
        let h = try unlockedVault()
        defer { h.stop() }
        let fill = try h.run(["credential", "--client", "git", "--yes", "get"], stdin: "protocol=https\nhost=git.example.com\n\n",
                             withPassword: false)
        #expect(fill.status == 0 && fill.stdout.contains("password=git-pw"), "\(fill)")
        let other = try h.run(["credential", "--client", "git", "--yes", "get"], stdin: "protocol=https\nhost=other.example.com\n\n",
                              withPassword: false)
        #expect(other.status == 0 && other.stdout.isEmpty && !other.stderr.contains("other-pw"), "\(other)")
        #expect(other.stderr.contains("not associated with other.example.com"), "\(other)")
    }
}
