import Foundation
import Glibc
import KeyshelfAgent
import KeyshelfTestSupport
import Testing

/// `keyshelf unlock`, `lock`, `status` and the commands that use the agent,
/// driven through the real binary (issue 6). Each test has its own vault and
/// `XDG_RUNTIME_DIR` and kills its agents at the end.
@Suite struct AgentCommandTests {
    @Test func commandsUseTheUnlockedAgentWithoutAPassword() throws {
        let h = try AgentHarness()
        defer { h.stop() }
        try h.check(h.run(["add", "example.com", "alice", "--local", "--password-stdin"], stdin: "s3cret\n"))
        try h.check(h.run(["add", "git.example.com", "bob", "--password-stdin"], stdin: "from-git\n"))
        #expect(try h.status()["unlocked"] as? Bool == false)
        let noPassword = try h.run(["get", "example.com", "alice"], withPassword: false)
        #expect(noPassword.status == 2, "locked: needs a password, and there is none: \(noPassword)")

        try h.check(h.run(["unlock"]))
        let status = try h.status()
        #expect(status["unlocked"] as? Bool == true)
        #expect((status["idleSecondsLeft"] as? Int ?? 0) > 890)
        #expect((status["maximumSecondsLeft"] as? Int ?? 0) > 28_000)

        let get = try h.check(h.run(["get", "example.com", "alice"], withPassword: false))
        #expect(get.stdout == "s3cret\n")
        let list = try h.check(h.run(["list"], withPassword: false))
        #expect(list.stdout.contains("git.example.com"))
        // Writes go through the agent's keys too, and the direct path reads them.
        try h.check(h.run(["add", "new.example.com", "carol", "--local", "--password-stdin"], stdin: "added\n", withPassword: false))
        #expect(try h.check(h.run(["get", "new.example.com", "carol", "--no-agent"])).stdout == "added\n")
        // Consent is still the client's: no terminal and no --yes declines a shared credential.
        #expect(try h.run(["get", "git.example.com", "bob"], withPassword: false).status == 4)
        // The git credential helper, without a terminal or a password.
        let credential = try h.check(h.run(["credential", "--yes", "get"], stdin: "protocol=https\nhost=git.example.com\n\n", withPassword: false))
        #expect(credential.stdout.contains("username=bob\n"))
        #expect(credential.stdout.contains("password=from-git\n"))
        // --no-agent takes the password path, and there is no password.
        #expect(try h.run(["get", "example.com", "alice", "--no-agent"], withPassword: false).status == 2)
    }

    @Test func unlockChecksThePasswordFirst() throws {
        let h = try AgentHarness()
        defer { h.stop() }
        let wrong = try h.run(["unlock"]) { $0["KEYSHELF_PASSWORD_FILE"] = nil }
        #expect(wrong.status == 2)
        let file = h.root + "/wrong"
        try Data("not the password\n".utf8).write(to: URL(fileURLWithPath: file))
        let refused = try h.run(["unlock"]) { $0["KEYSHELF_PASSWORD_FILE"] = file }
        #expect(refused.status == 5, "\(refused)")
        #expect(try h.agentPID() == nil)
    }

    @Test func idleLimitLocks() throws {
        let h = try AgentHarness()
        defer { h.stop() }
        try h.check(h.run(["add", "example.com", "alice", "--local", "--password-stdin"], stdin: "s3cret\n"))
        try h.check(h.run(["unlock", "--idle", "1"]))
        let pid = try #require(try h.agentPID())
        #expect(AgentHarness.eventually(10) { !AgentHarness.isAlive(pid) }, "the agent should exit after 1 s idle")
        #expect(try h.status()["unlocked"] as? Bool == false)
        #expect(try h.run(["get", "example.com", "alice"], withPassword: false).status == 2)
    }

    @Test func absoluteLimitLocksDespiteUse() throws {
        let h = try AgentHarness()
        defer { h.stop() }
        try h.check(h.run(["add", "example.com", "alice", "--local", "--password-stdin"], stdin: "s3cret\n"))
        try h.check(h.run(["unlock", "--max", "2"]) { $0["KEYSHELF_AGENT_IDLE"] = "60" })
        let pid = try #require(try h.agentPID())
        // Used every 200 ms: the idle limit never runs out, the absolute one does.
        let locked = try AgentHarness.eventually(10) {
            _ = try h.run(["get", "example.com", "alice"], withPassword: false)
            return !AgentHarness.isAlive(pid)
        }
        #expect(locked)
    }

    @Test func lockWipesTheKeys() throws {
        let h = try AgentHarness()
        defer { h.stop() }
        try h.check(h.run(["add", "example.com", "alice", "--local", "--password-stdin"], stdin: "s3cret\n"))
        try h.check(h.run(["unlock"]))
        let pid = try #require(try h.agentPID())
        let lock = try h.check(h.run(["lock"]))
        #expect(lock.stderr.contains("keyshelf: locked \(h.location.vaultPath)"), "\(lock)")
        #expect(AgentHarness.eventually(5) { !AgentHarness.isAlive(pid) })
        #expect(!FileManager.default.fileExists(atPath: h.location.socketPath))
        #expect(try h.status()["unlocked"] as? Bool == false)
        let get = try h.run(["get", "example.com", "alice"], withPassword: false)
        #expect(get.status == 2, "after lock the password is needed again: \(get)")
        #expect(get.stdout.isEmpty)
    }

    @Test func signalsLock() throws {
        for signal in [SIGTERM, SIGHUP] {
            let h = try AgentHarness()
            defer { h.stop() }
            try h.check(h.run(["unlock"]))
            let pid = try #require(try h.agentPID())
            kill(pid, signal)
            #expect(AgentHarness.eventually(5) { !AgentHarness.isAlive(pid) }, "signal \(signal)")
            #expect(!FileManager.default.fileExists(atPath: h.location.socketPath))
        }
    }

    @Test func staleSocketAfterSIGKILLNeverBlocks() throws {
        let h = try AgentHarness()
        defer { h.stop() }
        try h.check(h.run(["add", "example.com", "alice", "--local", "--password-stdin"], stdin: "s3cret\n"))
        try h.check(h.run(["unlock"]))
        let pid = try #require(try h.agentPID())
        kill(pid, SIGKILL)
        #expect(AgentHarness.eventually(5) { !AgentHarness.isAlive(pid) })
        #expect(FileManager.default.fileExists(atPath: h.location.socketPath), "SIGKILL leaves the socket file behind")
        #expect(try h.status()["unlocked"] as? Bool == false)
        #expect(try h.run(["get", "example.com", "alice"], withPassword: false).status == 2)
        #expect(try h.check(h.run(["get", "example.com", "alice"])).stdout == "s3cret\n")
        try h.check(h.run(["unlock"]))
        let second = try #require(try h.agentPID())
        #expect(second != pid)
        #expect(try h.check(h.run(["get", "example.com", "alice"], withPassword: false)).stdout == "s3cret\n")
    }

    @Test(.needsRoot("setpriv to uid 65534 to connect as another user"))
    func anotherUIDIsRefused() throws {
        let h = try AgentHarness()
        defer { h.stop() }
        try h.check(h.run(["add", "example.com", "alice", "--local", "--password-stdin"], stdin: "s3cret\n"))
        try h.check(h.run(["unlock"]))
        // Open the path to everyone, as a careless chmod would: SO_PEERCRED still refuses.
        chmod(h.runtime, 0o711)
        chmod(h.runtime + "/keyshelf", 0o711)
        chmod(h.location.socketPath, 0o666)
        let script = """
            import socket, struct, sys
            s = socket.socket(socket.AF_UNIX)
            s.connect(sys.argv[1])
            data = b''
            try:
                s.sendall(struct.pack('<I', 2) + bytes([1, 3]))
                while True:
                    chunk = s.recv(4096)
                    if not chunk: break
                    data += chunk
            except (BrokenPipeError, ConnectionResetError):
                pass  # the agent hung up on us: refused
            print(len(data))
            """
        let nobody = try Program.run(
            "/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/python3", "-c", script, h.location.socketPath],
            environment: ["PATH": "/usr/bin:/bin"])
        #expect(nobody.status == 0, "nobody could connect but must get nothing: \(nobody)")
        #expect(nobody.stdout == "0\n", "another uid got a reply: \(nobody)")
        // The agent is still there for its owner.
        #expect(try h.check(h.run(["get", "example.com", "alice"], withPassword: false)).stdout == "s3cret\n")
    }

    @Test func aSocketDirectoryOpenToOthersIsRefused() throws {
        try expectSocketDirectoryRefused(mode: 0o777, owner: getuid())
    }

    @Test(.needsRoot("chown of the socket directory to uid 65534"))
    func anotherUsersSocketDirectoryIsRefused() throws {
        try expectSocketDirectoryRefused(mode: 0o700, owner: 65534)
    }

    /// `unlock` refuses an agent directory of `mode` owned by `owner` and starts no agent.
    func expectSocketDirectoryRefused(mode: mode_t, owner: uid_t) throws {
        let h = try AgentHarness()
        defer { h.stop() }
        try h.check(h.run(["add", "example.com", "alice", "--local", "--password-stdin"], stdin: "s3cret\n"))
        let directory = h.runtime + "/keyshelf"
        mkdir(directory, mode)
        chmod(directory, mode)
        #expect(chown(directory, owner, gid_t(owner)) == 0)
        let unlock = try h.run(["unlock"])
        #expect(unlock.status == 1, "\(unlock)")
        #expect(unlock.stderr.contains(owner == getuid() ? "writable by group or others" : "belongs to uid \(owner)"), "\(unlock)")
        #expect(!FileManager.default.fileExists(atPath: h.location.socketPath))
        // Other commands say why they do not use the agent and take the password path.
        let get = try h.check(h.run(["get", "example.com", "alice"]))
        #expect(get.stdout == "s3cret\n")
        #expect(get.stderr.contains("not using the agent"))
    }

    /// `passwd --no-agent` changes the password here: the agent's keys no longer fit, so it is locked.
    /// (Through the agent it stays unlocked: AgentPasswdTests.)
    @Test func passwdWithoutTheAgentLocksItAndOldKeysFallBack() throws {
        let h = try AgentHarness()
        defer { h.stop() }
        try h.check(h.run(["add", "example.com", "alice", "--local", "--password-stdin"], stdin: "s3cret\n"))
        let newPassword = h.root + "/new"
        try Data("a new master password\n".utf8).write(to: URL(fileURLWithPath: newPassword))

        try h.check(h.run(["unlock"]))
        let pid = try #require(try h.agentPID())
        try h.check(h.run(["passwd", "--no-agent"]) { $0["KEYSHELF_NEW_PASSWORD_FILE"] = newPassword })
        #expect(AgentHarness.eventually(5) { !AgentHarness.isAlive(pid) }, "passwd locks the agent")

        // An agent that missed the change (passwd run with another runtime directory):
        // its keys no longer fit, so the command locks it and uses the password.
        try h.check(h.run(["unlock"]) { $0["KEYSHELF_PASSWORD_FILE"] = newPassword })
        let stale = try #require(try h.agentPID())
        try h.check(h.run(["passwd"]) {
            $0["KEYSHELF_PASSWORD_FILE"] = newPassword
            $0["KEYSHELF_NEW_PASSWORD_FILE"] = h.passwordFile
            $0["XDG_RUNTIME_DIR"] = h.root
        })
        #expect(AgentHarness.isAlive(stale))
        #expect(try h.check(h.run(["get", "example.com", "alice"])).stdout == "s3cret\n")
        #expect(AgentHarness.eventually(5) { !AgentHarness.isAlive(stale) })
    }

    @Test func concurrentWritesThroughTheAgentAndDirectlyLoseNothing() throws {
        let h = try AgentHarness()
        defer { h.stop() }
        try h.check(h.run(["unlock"]))
        let perSide = 8
        let failures = Failures()
        DispatchQueue.concurrentPerform(iterations: 2 * perSide) { index in
            let viaAgent = index % 2 == 0
            let account = (viaAgent ? "agent" : "direct") + "\(index)"
            let result = try? h.run(["add", "example.com", account, "--local", "--password-stdin"] + (viaAgent ? [] : ["--no-agent"]),
                                    stdin: "pw-\(index)\n", withPassword: !viaAgent)
            if result?.status != 0 { failures.add("\(account): \(result.map(String.init(describing:)) ?? "did not run")") }
        }
        #expect(failures.all.isEmpty, "\(failures.all)")
        let list = try h.check(h.run(["list", "example.com", "--json"], withPassword: false))
        let records = try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [[String: Any]] ?? []
        let accounts = Set(records.compactMap { $0["account"] as? String })
        #expect(accounts.count == 2 * perSide, "lost: \(Set((0..<2 * perSide).map { ($0 % 2 == 0 ? "agent" : "direct") + "\($0)" }).subtracting(accounts))")
    }

    @Test func twoUnlocksShareOneAgent() throws {
        let h = try AgentHarness()
        defer { h.stop() }
        DispatchQueue.concurrentPerform(iterations: 3) { _ in _ = try? h.run(["unlock"]) }
        let pid = try #require(try h.agentPID())
        try h.check(h.run(["unlock", "--idle", "100"]))
        #expect(try h.agentPID() == pid, "a second unlock reuses the agent")
        #expect((try h.status()["idleSecondsLeft"] as? Int ?? 0) <= 100)
    }
}

private final class Failures: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [String] = []
    func add(_ item: String) { lock.withLock { items.append(item) } }
    var all: [String] { lock.withLock { items } }
}
