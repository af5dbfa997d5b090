import Foundation
import KeyshelfTestSupport
import Testing

/// The TUI next to an unlocked agent (`keyshelf unlock`, issue 6): it opens
/// without the unlock screen, and its `X` lock locks the agent as well.
@Suite(.serialized) struct TUIAgentEndToEndTests {
    @Test func opensUnlockedThroughTheAgentAndXLocksTheAgent() throws {
        let tmux = try TmuxSession(samples: [("agent.example", "olga", .shared, "")])
        let binary = try #require(TmuxSession.binary, "build the keyshelf executable first (swift build)").path
        // Socket paths must fit 107 bytes, so the runtime directory stays short.
        var template = Array("/tmp/kst-XXXXXX".utf8CString)
        let runtime = try #require(mkdtemp(&template).map { String(cString: $0) })
        defer { try? FileManager.default.removeItem(atPath: runtime) }
        let vault = tmux.folder.appendingPathComponent("vault").path
        let password = tmux.folder.appendingPathComponent("password").path
        let env = "env TERM=xterm-256color LANG=C.UTF-8 XDG_RUNTIME_DIR=\(runtime) XDG_CONFIG_HOME=\(tmux.folder.path)"
        // Only `unlock` gets the master password; the TUI must find the agent.
        let command = "\(env) KEYSHELF_PASSWORD_FILE=\(password) \(binary) unlock --vault \(vault) --idle 60 >/dev/null"
            + " && \(env) \(binary) --vault \(vault); echo EXITED $?; \(env) \(binary) lock --vault \(vault); sleep 30"
        try tmux.tmux(["-f", "/dev/null", "new-session", "-d", "-x", "100", "-y", "30", command])

        let screen = try tmux.waitFor("olga")
        #expect(!screen.contains("Unlock keyshelf"))
        let agentDirectory = runtime + "/keyshelf"
        #expect(try sockets(in: agentDirectory).count == 1)

        try tmux.send("X")
        try tmux.waitFor("Unlock keyshelf")
        let deadline = Date().addingTimeInterval(5)
        while try !sockets(in: agentDirectory).isEmpty && Date() < deadline {
            Thread.sleep(forTimeInterval: 0.05)
        }
        #expect(try sockets(in: agentDirectory).isEmpty, "X must lock the agent: its socket goes away")
        try tmux.send("Escape")
        try tmux.waitFor("EXITED 0")
    }

    private func sockets(in directory: String) throws -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).filter { $0.hasSuffix(".sock") }
    }
}
