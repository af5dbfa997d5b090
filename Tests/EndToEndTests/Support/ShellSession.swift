import Foundation
import KeyshelfTestSupport
import Glibc
import Testing

/// An interactive bash or zsh in a tmux server of its own, for completion
/// tests through the real line editor: type, press Tab, poll the screen
/// until the expected text appears (no fixed sleeps).
final class ShellSession {
    let socket = "keyshelf-shell-\(UUID().uuidString.prefix(8))"
    private let prompt = "ks-shell$ "

    /// Starts `shell` (a path and its arguments) with exactly `environment`,
    /// then runs `setup` (lines typed before the test starts).
    init(shell: [String], environment: [String: String], setup: [String]) throws {
        let assignments = environment.map { "\($0.key)=\(Self.quote($0.value))" }.sorted().joined(separator: " ")
        let command = "env -i \(assignments) TERM=xterm-256color PS1=\(Self.quote(prompt)) " + shell.map(Self.quote).joined(separator: " ")
        try tmux(["-f", "/dev/null", "new-session", "-d", "-x", "160", "-y", "40", command])
        for line in setup + ["PS1=\(Self.quote(prompt))", "clear"] {
            try tmux(["send-keys", "-l", line])
            try tmux(["send-keys", "Enter"])
        }
        try waitFor { $0.trimmingCharacters(in: .whitespacesAndNewlines) == prompt.trimmingCharacters(in: .whitespaces) }
    }

    deinit { _ = try? tmux(["kill-server"]) }

    /// Clears the line, types `text`, presses Tab, then types `@`, and
    /// returns the screen once `expected@` shows on the prompt's line. Keys
    /// are read in order, so the marker lands after the completion and
    /// shows a trailing space that `capture-pane` would trim.
    @discardableResult
    func complete(_ text: String, expecting expected: String) throws -> String {
        try tmux(["send-keys", "C-u"])
        try tmux(["send-keys", "-l", text])
        try tmux(["send-keys", "Tab"])
        try tmux(["send-keys", "-l", "@"])
        return try waitFor { $0.contains(self.prompt + expected + "@") }
    }

    /// Types `text` at the end of the current line (no Enter).
    func type(_ text: String) throws {
        try tmux(["send-keys", "-l", text])
    }

    @discardableResult
    func waitFor(_ condition: (String) -> Bool) throws -> String {
        let deadline = Date().addingTimeInterval(15)
        var last = ""
        while Date() < deadline {
            last = try tmux(["capture-pane", "-p"])
            if condition(last) { return last }
            Thread.sleep(forTimeInterval: 0.03)
        }
        Issue.record("timed out; the screen was:\n\(last)")
        return last
    }

    /// Runs tmux with `posix_spawn` and `waitpid`, its output in a file:
    /// Foundation's `Process` was seen missing the exit of a client whose
    /// server keeps the inherited descriptors, and the server must not
    /// inherit the test runner's blocked signals (as `TestProcess` of KeyshelfTestSupport).
    @discardableResult
    func tmux(_ arguments: [String]) throws -> String {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("keyshelf-tmux-\(UUID().uuidString)").path
        defer { unlink(output) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var empty = sigset_t(), all = sigset_t()
        sigemptyset(&empty)
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &empty)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var argv = (["/usr/bin/tmux", "-L", socket] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let variables: [String] = ["PATH=/usr/bin:/bin", "LANG=C.UTF-8"]
        var env = variables.map { strdup($0) } + [nil]
        defer { env.forEach { free($0) } }
        var pid: pid_t = 0
        guard posix_spawn(&pid, "/usr/bin/tmux", &actions, &attributes, &argv, &env) == 0 else {
            throw SetupError(run: Run(status: -1, stdoutData: Data(), stderr: "posix_spawn tmux failed"))
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
        guard status == 0 else {
            throw SetupError(run: Run(status: status, stdoutData: Data(text.utf8), stderr: "tmux \(arguments)"))
        }
        return text
    }

    /// A single-quoted POSIX shell word.
    static func quote(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
