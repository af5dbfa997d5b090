import Foundation
import Glibc
import KeyshelfTestSupport
import Testing
@testable import KeyshelfAgent

/// An agent that is idle-flooded, stopped, gone or not ours (issue 11 items
/// 1 and 25, issue 20 item 6), through the real binary: commands answer, fall
/// back to the master password, or name the agent's trouble — never "no
/// master password" when the trouble is the agent's.
@Suite struct AgentFailureTests {
    /// A Unix socket connected to `path`, nil when the agent's backlog stays full.
    static func connectIdle(_ path: String) -> Int32? {
        guard case .connected(let fd)? = try? AgentSocket.connect(path, timeoutSeconds: 0.5) else { return nil }
        return fd
    }

    /// Whether the other end closed `fd` (end of stream) within `seconds`.
    static func closedByPeer(_ fd: Int32, within seconds: Double) -> Bool {
        var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&entry, 1, Int32(seconds * 1000)) == 1 else { return false }
        var byte: UInt8 = 0
        return recv(fd, &byte, 1, 0) == 0
    }

    static let noPasswordMessage = "no master password"

    func harnessWithAgent() throws -> AgentHarness {
        let h = try AgentHarness()
        try h.check(h.run(["add", "example.com", "alice", "--local", "--password-stdin"], stdin: "s3cret\n"))
        try h.check(h.run(["unlock"]))
        return h
    }

    /// The master password on descriptor 0: the direct path, without `$KEYSHELF_PASSWORD_FILE`.
    func getWithPasswordFD(_ h: AgentHarness) throws -> Run {
        try h.run(["get", "example.com", "alice", "--password-fd", "0"], stdin: AgentHarness.masterPassword + "\n", withPassword: false)
    }

    @Test func idleConnectionsHoldOffNobody() throws {
        let h = try harnessWithAgent()
        defer { h.stop() }
        let idle = (0..<40).compactMap { _ in Self.connectIdle(h.location.socketPath) }
        defer { idle.forEach { close($0) } }
        #expect(idle.count == 40, "the agent accepts every connection")
        // Only the agent can answer (no password): it does while 40 connections sit idle.
        let get = try h.run(["get", "example.com", "alice"], withPassword: false)
        #expect(get.status == 0 && get.stdout == "s3cret\n", "\(get)")
        // Each idle one is closed once its request deadline (1 s) has passed.
        let closed = idle.filter { Self.closedByPeer($0, within: 20) }
        #expect(closed.count == idle.count, "\(idle.count - closed.count) idle connections were left open")
        #expect(try h.check(h.run(["get", "example.com", "alice"], withPassword: false)).stdout == "s3cret\n")
    }

    /// The agent's main thread exits on `lock` while the connection's thread
    /// sends the reply: the client still gets it.
    @Test func lockIsAnsweredBeforeTheAgentExits() throws {
        let h = try AgentHarness()
        defer { h.stop() }
        for _ in 0..<5 {
            try h.check(h.run(["unlock"]))
            #expect(try AgentClient.lock(h.location), "the agent's reply to lock was lost")
        }
    }

    @Test func aStoppedAgentFallsBackToTheDirectPath() throws {
        let h = try harnessWithAgent()
        defer { h.stop() }
        let pid = try #require(try h.agentPID())
        kill(pid, SIGSTOP)
        defer { kill(pid, SIGCONT) }
        let direct = try getWithPasswordFD(h)
        #expect(direct.status == 0 && direct.stdout == "s3cret\n", "\(direct)")
        #expect(direct.stderr.contains("not using the agent: the agent (pid \(pid)) is stopped"), "\(direct)")
        let noPassword = try h.run(["get", "example.com", "alice"], withPassword: false)
        #expect(noPassword.status == 2 && noPassword.stdout.isEmpty, "\(noPassword)")
        #expect(noPassword.stderr.contains("the agent cannot be used (the agent (pid \(pid)) is stopped"), "\(noPassword)")
        #expect(!noPassword.stderr.contains(Self.noPasswordMessage), "\(noPassword)")
        // `status` names the trouble rather than reading a stopped agent as locked.
        #expect(try h.run(["status"]).stderr.contains("is stopped"))
        kill(pid, SIGCONT)
        #expect(try h.check(h.run(["get", "example.com", "alice"], withPassword: false)).stdout == "s3cret\n")
    }

    @Test func aStaleSocketFileNamesTheAgent() throws {
        let h = try AgentHarness()
        defer { h.stop() }
        try h.check(h.run(["add", "example.com", "alice", "--local", "--password-stdin"], stdin: "s3cret\n"))
        // A socket file nobody listens on, as a crashed agent leaves it.
        try h.location.checkDirectory(create: true)
        close(try AgentSocket.listen(h.location.socketPath))
        #expect(FileManager.default.fileExists(atPath: h.location.socketPath))
        let noPassword = try h.run(["get", "example.com", "alice"], withPassword: false)
        #expect(noPassword.status == 2, "\(noPassword)")
        #expect(noPassword.stderr.contains("the agent for this vault is gone"), "\(noPassword)")
        #expect(!noPassword.stderr.contains(Self.noPasswordMessage), "\(noPassword)")
        let direct = try getWithPasswordFD(h)
        #expect(direct.status == 0 && direct.stdout == "s3cret\n", "\(direct)")
        #expect(try h.status()["unlocked"] as? Bool == false)
        try h.check(h.run(["unlock"]))
        #expect(try h.check(h.run(["get", "example.com", "alice"], withPassword: false)).stdout == "s3cret\n")
    }

    /// A same-uid "agent" that dies with the request: after reading it,
    /// without a reply or after the first bytes of one; or before reading
    /// it all (the kernel then resets the connection).
    @Test(arguments: ["silent", "cut", "reset"]) func anAgentDyingMidReplyNamesTheAgent(mode: String) throws {
        let h = try AgentHarness()
        defer { h.stop() }
        try h.check(h.run(["add", "example.com", "alice", "--local", "--password-stdin"], stdin: "s3cret\n"))
        try h.location.checkDirectory(create: true)
        let ready = h.root + "/ready"
        let script = """
            import socket, struct, sys
            s = socket.socket(socket.AF_UNIX)
            s.bind(sys.argv[1])
            s.listen(8)
            open(sys.argv[2], 'w').close()
            while True:
                c, _ = s.accept()
                n = struct.unpack('<I', c.recv(4, socket.MSG_WAITALL))[0]
                if sys.argv[3] == 'reset':
                    c.close()
                    continue
                c.recv(n, socket.MSG_WAITALL)
                if sys.argv[3] == 'cut':
                    c.sendall(struct.pack('<I', 100) + bytes([2, 0]))
                c.close()
            """
        let server = Process()
        server.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        server.arguments = ["-c", script, h.location.socketPath, ready, mode]
        try server.run()
        defer { kill(server.processIdentifier, SIGKILL) }
        #expect(AgentHarness.eventually(20) { FileManager.default.fileExists(atPath: ready) })

        let noPassword = try h.run(["get", "example.com", "alice"], withPassword: false)
        #expect(noPassword.status == 2 && noPassword.stdout.isEmpty, "\(noPassword)")
        #expect(noPassword.stderr.contains("the agent cannot be used"), "\(noPassword)")
        let trouble = ["silent": "closed the connection without answering", "cut": "in the middle of a frame", "reset": "reset the connection"]
        #expect(noPassword.stderr.contains(trouble[mode]!), "\(noPassword)")
        #expect(!noPassword.stderr.contains(Self.noPasswordMessage), "\(noPassword)")
        let direct = try getWithPasswordFD(h)
        #expect(direct.status == 0 && direct.stdout == "s3cret\n", "\(direct)")
    }

    /// Issue 20 item 6: the client checks who serves the socket (`SO_PEERCRED`)
    /// right after `connect` and sends nothing to another uid.
    @Test(.needsRoot("serving a socket as uid 65534 (setpriv)"))
    func aSocketServedByAnotherUIDGetsNoByte() throws {
        let h = try AgentHarness()
        defer { h.stop() }
        try h.check(h.run(["add", "example.com", "alice", "--local", "--password-stdin"], stdin: "s3cret\n"))
        try h.location.checkDirectory(create: true)
        let directory = h.location.directory
        let ready = directory + "/ready"
        // Open for uid 65534 to bind its socket, then back to 0700 for the client's directory check.
        chmod(h.runtime, 0o711)
        chmod(directory, 0o777)
        let script = """
            import signal, socket, sys
            signal.alarm(60)
            s = socket.socket(socket.AF_UNIX)
            s.bind(sys.argv[1])
            s.listen(8)
            open(sys.argv[2], 'w').close()
            total = 0
            # The in-process status, then the thin `keyshelf` and the keyshelf-full it hands on to.
            for _ in range(3):
                c, _ = s.accept()
                while True:
                    chunk = c.recv(4096)
                    if not chunk: break
                    total += len(chunk)
                c.close()
            print(total)
            """
        let output = Pipe()
        let server = Process()
        server.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        server.arguments = ["--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/python3", "-c", script, h.location.socketPath, ready]
        server.environment = ["PATH": "/usr/bin:/bin"]
        server.standardOutput = output
        try server.run()
        defer { if server.isRunning { kill(server.processIdentifier, SIGKILL) } }
        #expect(AgentHarness.eventually(20) { FileManager.default.fileExists(atPath: ready) })
        unlink(ready)
        chmod(directory, 0o700)

        // In process, then through the binary (which takes the password path).
        #expect(throws: AgentError(.protocolError, "")) { try AgentClient.status(h.location) }
        let get = try h.run(["get", "example.com", "alice"])
        #expect(get.status == 0 && get.stdout == "s3cret\n", "\(get)")
        #expect(get.stderr.contains("is served by uid 65534, not by you; refusing to use it"), "\(get)")
        server.waitUntilExit()
        let received = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(received == "0\n", "the server of another uid received bytes: \(received)")
    }
}
