import Foundation
import KeyshelfTestSupport

/// An interactive bash or zsh in a tmux server of its own (`TmuxSession` of
/// KeyshelfTestSupport), for completion tests through the real line editor:
/// type, press Tab, poll the screen until the expected text appears (no fixed sleeps).
final class ShellSession {
    private let session: TmuxSession
    private let prompt = "ks-shell$ "

    /// Starts `shell` (a path and its arguments) with exactly `environment`,
    /// then runs `setup` (lines typed before the test starts).
    init(shell: [String], environment: [String: String], setup: [String]) throws {
        session = try TmuxSession()
        let assignments = environment.map { "\($0.key)=\(Self.quote($0.value))" }.sorted().joined(separator: " ")
        let command = "env -i \(assignments) TERM=xterm-256color PS1=\(Self.quote(prompt)) " + shell.map(Self.quote).joined(separator: " ")
        try session.start(command: command, columns: 160, rows: 40)
        for line in setup + ["PS1=\(Self.quote(prompt))", "clear"] {
            try session.type(line)
            try session.send("Enter")
        }
        try waitFor { $0.trimmingCharacters(in: .whitespacesAndNewlines) == prompt.trimmingCharacters(in: .whitespaces) }
    }

    /// Clears the line, types `text`, presses Tab, then types `@`, and
    /// returns the screen once `expected@` shows on the prompt's line. Keys
    /// are read in order, so the marker lands after the completion and
    /// shows a trailing space that `capture-pane` would trim.
    @discardableResult
    func complete(_ text: String, expecting expected: String) throws -> String {
        try session.send("C-u")
        try session.type(text)
        try session.send("Tab")
        try session.type("@")
        return try waitFor { $0.contains(self.prompt + expected + "@") }
    }

    /// Types `text` at the end of the current line (no Enter).
    func type(_ text: String) throws {
        try session.type(text)
    }

    /// Polls the screen until `condition` holds (at most 15 s).
    @discardableResult
    func waitFor(_ condition: (String) -> Bool) throws -> String {
        try session.waitFor(timeout: 15, condition)
    }

    /// Runs `tmux -L SOCKET arguments…` on this shell's server.
    @discardableResult
    func tmux(_ arguments: [String]) throws -> String {
        try session.tmux(arguments)
    }

    /// A single-quoted POSIX shell word.
    static func quote(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
