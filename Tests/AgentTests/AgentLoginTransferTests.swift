import Foundation
import KeyshelfCredentials
import KeyshelfCrypto
import KeyshelfTestSupport
import KeyshelfVault
import Testing
@testable import KeyshelfAgent

/// `login`, `import` and `export` through the unlocked agent (issue 12 item
/// 2): the vault's part runs in the agent, the prompt, the check and the
/// consent in the client, and every command prints, exits and leaves the
/// vault exactly as without the agent (a twin vault, `--no-agent`).
@Suite struct AgentLoginTransferTests {
    /// Two vaults with the same items: `agent` unlocked, `direct` used with `--no-agent`.
    func twins(_ setup: (AgentHarness) throws -> Void) throws -> (agent: AgentHarness, direct: AgentHarness) {
        let agent = try AgentHarness(), direct = try AgentHarness()
        try setup(agent)
        try setup(direct)
        try agent.check(agent.run(["unlock"]))
        return (agent, direct)
    }

    /// Runs `arguments` through the agent only (no master password anywhere) and
    /// directly on the twin, and expects the same output, status and vault afterwards.
    @discardableResult
    func expectSame(_ t: (agent: AgentHarness, direct: AgentHarness), _ arguments: [String], stdin: String = "",
                    sourceLocation: SourceLocation = #_sourceLocation) throws -> Run {
        let viaAgent = try t.agent.run(arguments, stdin: stdin, withPassword: false)
        let direct = try t.direct.run(arguments + ["--no-agent"], stdin: stdin)
        #expect(viaAgent.status == direct.status, "\(viaAgent)\n\(direct)", sourceLocation: sourceLocation)
        // Each twin saves at its own second: `--json`'s dates are compared without their values.
        #expect(Self.withoutDates(viaAgent.stdout) == Self.withoutDates(direct.stdout), "\(viaAgent)\n\(direct)", sourceLocation: sourceLocation)
        #expect(viaAgent.stderr == direct.stderr, "\(viaAgent)\n\(direct)", sourceLocation: sourceLocation)
        let state = ["export", "-", "--yes", "--no-agent"]
        #expect(try t.agent.run(state).stdout == t.direct.run(state).stdout, "the vaults differ after \(arguments)", sourceLocation: sourceLocation)
        // Plain `list`: each twin was filled at its own second, so the dates of `--json` may differ.
        let list = ["list", "--no-agent"]
        #expect(try t.agent.run(list).stdout == t.direct.run(list).stdout, "the listings differ after \(arguments)", sourceLocation: sourceLocation)
        return viaAgent
    }

    /// `text` with the values of `--json`'s `created` and `modified` fields blanked.
    static func withoutDates(_ text: String) -> String {
        text.replacingOccurrences(of: #""(created|modified)":"[^"]*""#, with: #""$1":"""#, options: .regularExpression)
    }

    func seed(_ h: AgentHarness) throws {
        try h.check(h.run(["add", "example.com", "alice", "--password-stdin"], stdin: "shared-pw\n"))
        try h.check(h.run(["add", "example.com", "bob", "--local", "--password-stdin"], stdin: "local-pw\n"))
        try h.check(h.run(["add", "plain.example:8443", "carol", "--password-stdin"], stdin: "c-pw\n"))
        try h.check(h.run(["add", "--service", "wifi", "home", "--password-stdin"], stdin: "hunter2\n"))
    }

    @Test func exportThroughTheAgentWritesWhatTheVaultWould() throws {
        let t = try twins(seed)
        defer { t.agent.stop(); t.direct.stop() }
        for format in ["chrome", "bitwarden", "bitwarden-json"] {
            let viaAgent = try t.agent.check(t.agent.run(["export", "-", "--yes", "--format", format], withPassword: false))
            let direct = try t.agent.check(t.agent.run(["export", "-", "--yes", "--format", format, "--no-agent"]))
            #expect(viaAgent.stdout == direct.stdout && viaAgent.stderr == direct.stderr, "\(viaAgent)\n\(direct)")
            #expect(viaAgent.stdout.contains("shared-pw") && viaAgent.stdout.contains("local-pw") && !viaAgent.stdout.contains("hunter2"))
        }
        try t.agent.check(t.agent.run(["export", t.agent.root + "/out.csv", "--yes"], withPassword: false))
        try t.agent.check(t.agent.run(["export", t.agent.root + "/direct.csv", "--yes", "--no-agent"]))
        #expect(try Data(contentsOf: URL(fileURLWithPath: t.agent.root + "/out.csv")) == Data(contentsOf: URL(fileURLWithPath: t.agent.root + "/direct.csv")))
        // Without --yes and a terminal the export is declined, as without the agent.
        try expectSame(t, ["export", "-"])
    }

    @Test func importThroughTheAgentPlansAndCommitsAsTheDirectPath() throws {
        let t = try twins(seed)
        defer { t.agent.stop(); t.direct.stop() }
        let csv = "name,url,username,password,note\n"
            + "a,https://example.com/,alice,new-shared,\n"
            + "b,https://example.com/login,bob,local-pw,\n"
            + "z,https://zed.example/login,zoë,zz,a note\n"
            + "z,https://zed.example/login,zoë,zz,a note\n"
            + "y,https://zed.example/,zoë,other,\n"
            + "app,android://hash@com.example.app/,anna,app-pw,\n"
        let file = t.agent.root + "/in.csv"
        try csv.write(toFile: file, atomically: true, encoding: .utf8)
        try expectSame(t, ["import", file, "--dry-run"])
        // No terminal, no --yes: the update is declined (noted), the rest imported.
        let declined = try expectSame(t, ["import", file])
        #expect(declined.stderr.contains("updates were declined"), "\(declined)")
        try expectSame(t, ["import", file, "--yes"])
        try expectSame(t, ["import", file, "--local", "--yes"])
        #expect(try t.agent.check(t.agent.run(["get", "example.com", "alice", "--shared", "--no-agent", "--yes"])).stdout == "new-shared\n")
        // A file that cannot be read changes nothing and asks nothing, with or without the agent.
        try "not,a,known\nheader,x,y\n".write(toFile: file, atomically: true, encoding: .utf8)
        try expectSame(t, ["import", file, "--yes"])
    }

    @Test func loginThroughTheAgentFindsSavesAndRefusesAsTheDirectPath() throws {
        let t = try twins(seed)
        defer { t.agent.stop(); t.direct.stop() }
        // A shared credential, released with --yes and kept locally.
        try expectSame(t, ["login", "example.com", "alice", "--yes"])
        try expectSame(t, ["login", "example.com", "alice", "--json"])
        // A scheme-less SERVER resolves to the saved server, port included.
        try expectSame(t, ["login", "plain.example:8443", "--yes", "--json"])
        // No terminal: the release is declined, and the prompt cannot ask (exit 4).
        try expectSame(t, ["login", "plain.example:8443"])
        // The check refuses the saved credential; the prompt cannot ask.
        try expectSame(t, ["login", "example.com", "bob", "--check", "exit 1"])
        try expectSame(t, ["login", "example.com", "bob", "--check", "cat >/dev/null"])
        try expectSame(t, ["login", "nothing.example", "--yes"])
        try expectSame(t, ["login", "example.com", ""])
    }

    @Test func aLoginSaveAsksTheClientAndSavesNothingWhileItWaits() throws {
        let h = try AgentHarness()
        defer { h.stop() }
        try h.check(h.run(["add", "example.com", "alice", "--password-stdin"], stdin: "old\n"))
        try h.check(h.run(["unlock"]))
        let site = try ServerName(parsing: "example.com")
        let save = ShelfOperation.saveLogin(server: site, account: "alice", password: Secret(utf8: "new"), localOnly: false)
        var localWhileAsked: Int32?
        let declined = ScriptedConsent([.declined]) { _ in
            localWhileAsked = try? h.run(["get", "example.com", "alice", "--local", "--no-agent"]).status
        }
        // Direct, the local item is added and the shared update declined; the agent gives the same.
        #expect(try h.perform(save, consent: declined) == .saved(SaveResult(local: .added, shared: nil)))
        #expect(declined.requests == [.update(server: site, account: "alice")])
        #expect(localWhileAsked == 3, "the agent saved the local item before the client answered")
        #expect(try h.check(h.run(["get", "example.com", "alice", "--shared", "--no-agent", "--yes"])).stdout == "old\n")
        #expect(try h.check(h.run(["get", "example.com", "alice", "--local", "--no-agent"])).stdout == "new\n")

        let approved = ScriptedConsent([.approved])
        #expect(try h.perform(save, consent: approved) == .saved(SaveResult(local: .unchanged, shared: .updated)))
        #expect(try h.check(h.run(["get", "example.com", "alice", "--shared", "--no-agent", "--yes"])).stdout == "new\n")

        // Steps 1–2: the release is asked by the client; declined, nothing is found.
        let lookup = ShelfOperation.lookup(server: try ServerPattern(parsing: "example.com"), account: nil, passwordsOnly: false)
        try h.check(h.run(["rm", "example.com", "alice", "--local", "--yes", "--no-agent"]))
        let release = ScriptedConsent([.declined])
        #expect(try h.perform(lookup, consent: release) == .lookedUp(server: site, record: nil))
        #expect(release.requests == [.release(server: site, accounts: ["alice"])])
        let chosen = ScriptedConsent([.chose(account: "alice")])
        #expect(try h.perform(lookup, consent: chosen)?.lookedUp?.record?.password == Secret(utf8: "new"))
    }
}
