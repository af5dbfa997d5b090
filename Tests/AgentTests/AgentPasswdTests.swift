import Foundation
import Glibc
import KeyshelfTestSupport
import Testing
@testable import KeyshelfAgent

/// `keyshelf passwd` as the `changeMasterPassword` operation (issue 12 item 2),
/// through the real binary: the unlocked agent checks the current password,
/// rotates the keys and keeps serving with the new ones; a wrong current
/// password changes nothing; a request the agent may have run is never
/// repeated directly; an agent without the operation hands it back.
@Suite struct AgentPasswdTests {
    static let newPassword = "a new master password"

    /// A harness with one local login, its agent unlocked, and the new master password in a file.
    func unlockedHarness() throws -> (AgentHarness, newFile: String) {
        let h = try AgentHarness()
        try h.check(h.run(["add", "example.com", "alice", "--local", "--password-stdin"], stdin: "s3cret\n"))
        let newFile = h.root + "/new"
        try Data((Self.newPassword + "\n").utf8).write(to: URL(fileURLWithPath: newFile))
        return (h, newFile)
    }

    func vaultFiles(_ h: AgentHarness) throws -> [Data] {
        try ["local.vault", "shared.vault"].map { try Data(contentsOf: URL(fileURLWithPath: h.vault + "/" + $0)) }
    }

    /// `get` on the direct path with the master password in `file`.
    func directGet(_ h: AgentHarness, passwordFile file: String) throws -> Run {
        try h.run(["get", "example.com", "alice", "--no-agent"]) { $0["KEYSHELF_PASSWORD_FILE"] = file }
    }

    @Test func theAgentChangesThePasswordAndKeepsServingWithTheNewKeys() throws {
        let (h, newFile) = try unlockedHarness()
        defer { h.stop() }
        try h.check(h.run(["unlock"]))
        let pid = try #require(try h.agentPID())

        let changed = try h.check(h.run(["passwd"]) { $0["KEYSHELF_NEW_PASSWORD_FILE"] = newFile })
        #expect(changed.stderr.contains("changed the master password; the agent stays unlocked"), "\(changed)")
        #expect(AgentHarness.isAlive(pid))
        #expect(try h.status()["unlocked"] as? Bool == true)

        // The old password opens nothing any more, the new one does.
        #expect(try directGet(h, passwordFile: h.passwordFile).status == 5)
        let reopened = try directGet(h, passwordFile: newFile)
        #expect(reopened.status == 0 && reopened.stdout == "s3cret\n", "\(reopened)")

        // The agent answers without a password: from its open vault, and with its keys (`--json` opens the vault here).
        #expect(try h.check(h.run(["get", "example.com", "alice"], withPassword: false)).stdout == "s3cret\n")
        let json = try h.check(h.run(["get", "example.com", "alice", "--json"], withPassword: false))
        #expect(json.stdout.contains("\"password\":\"s3cret\""), "\(json)")
        // ... and writes under the new keys.
        try h.check(h.run(["add", "example.com", "bob", "--local", "--password-stdin"], stdin: "pw2\n", withPassword: false))
        let bob = try h.run(["get", "example.com", "bob", "--no-agent"]) { $0["KEYSHELF_PASSWORD_FILE"] = newFile }
        #expect(bob.status == 0 && bob.stdout == "pw2\n", "\(bob)")
        #expect(AgentHarness.isAlive(pid))
    }

    @Test func aWrongCurrentPasswordThroughTheAgentExitsFiveAndChangesNothing() throws {
        let (h, newFile) = try unlockedHarness()
        defer { h.stop() }
        let wrongFile = h.root + "/wrong"
        try Data("not the password\n".utf8).write(to: URL(fileURLWithPath: wrongFile))
        // The twin without the agent: today's message.
        let direct = try h.run(["passwd", "--no-agent"]) {
            $0["KEYSHELF_PASSWORD_FILE"] = wrongFile
            $0["KEYSHELF_NEW_PASSWORD_FILE"] = newFile
        }
        #expect(direct.status == 5, "\(direct)")

        try h.check(h.run(["unlock"]))
        let pid = try #require(try h.agentPID())
        let before = try vaultFiles(h)
        let wrong = try h.run(["passwd"]) {
            $0["KEYSHELF_PASSWORD_FILE"] = wrongFile
            $0["KEYSHELF_NEW_PASSWORD_FILE"] = newFile
        }
        #expect(wrong.status == 5, "\(wrong)")
        #expect(wrong.stderr == direct.stderr, "\(wrong)\n\(direct)")
        #expect(wrong.stderr.contains("wrong master password (errSecAuthFailed -25293)"), "\(wrong)")
        #expect(try vaultFiles(h) == before)
        #expect(AgentHarness.isAlive(pid))
        #expect(try h.check(h.run(["get", "example.com", "alice"], withPassword: false)).stdout == "s3cret\n")
        #expect(try directGet(h, passwordFile: h.passwordFile).status == 0)
    }

    /// A same-uid "agent" that says it is unlocked (`status`), answers
    /// `passwd`'s request (code 19) with `reply` (hex bytes of a frame body;
    /// "" closes the connection without a reply) and every other request
    /// with `badRequest`.
    func fakeAgent(_ h: AgentHarness, reply: String) throws -> Process {
        try h.location.checkDirectory(create: true)
        let ready = h.root + "/ready"
        let script = """
            import os, socket, struct, sys
            s = socket.socket(socket.AF_UNIX)
            s.bind(sys.argv[1])
            s.listen(8)
            open(sys.argv[2], 'w').close()
            path = sys.argv[4].encode()
            status = struct.pack('<BBiQQB', 2, 0, os.getpid(), 900, 900, 1) + struct.pack('<I', len(path)) + path
            while True:
                c, _ = s.accept()
                n = struct.unpack('<I', c.recv(4, socket.MSG_WAITALL))[0]
                request = c.recv(n, socket.MSG_WAITALL)
                body = {1: status, 19: bytes.fromhex(sys.argv[3])}.get(request[1], bytes([2, 2]))
                if body:
                    c.sendall(struct.pack('<I', len(body)) + body)
                c.close()
            """
        let server = Process()
        server.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        server.arguments = ["-c", script, h.location.socketPath, ready, reply, h.location.vaultPath]
        try server.run()
        #expect(AgentHarness.eventually(20) { FileManager.default.fileExists(atPath: ready) })
        return server
    }

    @Test func anUnansweredRequestIsReportedAndNeverRepeatedDirectly() throws {
        let (h, newFile) = try unlockedHarness()
        defer { h.stop() }
        let server = try fakeAgent(h, reply: "")
        defer { kill(server.processIdentifier, SIGKILL) }
        let before = try vaultFiles(h)
        let lost = try h.run(["passwd"]) { $0["KEYSHELF_NEW_PASSWORD_FILE"] = newFile }
        #expect(lost.status == 1, "\(lost)")
        #expect(lost.stderr.contains("no answer from the agent to the master password change (the agent (pid"), "\(lost)")
        #expect(lost.stderr.contains("it may have changed the password. Check with `keyshelf status`"), "\(lost)")
        #expect(!lost.stderr.contains("changed the master password;"), "\(lost)")
        #expect(try vaultFiles(h) == before)
        #expect(try directGet(h, passwordFile: h.passwordFile).status == 0)
    }

    @Test func anAgentWithoutTheOperationHandsItBackAndTheChangeIsMadeHere() throws {
        let (h, newFile) = try unlockedHarness()
        defer { h.stop() }
        // Version 2, `badRequest`: what an agent older than code 19 answers.
        let server = try fakeAgent(h, reply: "0202")
        defer { kill(server.processIdentifier, SIGKILL) }
        let changed = try h.run(["passwd"]) { $0["KEYSHELF_NEW_PASSWORD_FILE"] = newFile }
        #expect(changed.status == 0, "\(changed)")
        #expect(changed.stderr.contains("changed the master password; the agent is locked"), "\(changed)")
        #expect(try directGet(h, passwordFile: h.passwordFile).status == 5)
        #expect(try directGet(h, passwordFile: newFile).stdout == "s3cret\n")
    }
}
