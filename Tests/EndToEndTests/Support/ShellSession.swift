import Foundation
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

    /// Clears the line, types `text`, presses Tab, and returns the screen
    /// once `expected` shows on the prompt's line.
    @discardableResult
    func complete(_ text: String, expecting expected: String, tabs: Int = 1) throws -> String {
        try tmux(["send-keys", "C-u"])
        try tmux(["send-keys", "-l", text])
        for _ in 0..<tabs { try tmux(["send-keys", "Tab"]) }
        return try waitFor { $0.contains(self.prompt + expected) }
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

    @discardableResult
    func tmux(_ arguments: [String]) throws -> String {
        let result = try Keyshelf.runProcess("/usr/bin/tmux", ["-L", socket] + arguments, environment: ["PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"])
        guard result.status == 0 else { throw SetupError(run: result) }
        return result.stdout
    }

    /// A single-quoted POSIX shell word.
    static func quote(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
