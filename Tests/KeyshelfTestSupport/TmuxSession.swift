import Foundation
import Testing

/// A program in a detached tmux server of its own (PLATFORM.md): keys go in
/// with `send-keys`, the screen comes back with `capture-pane`, polled until
/// the expected text appears. The server and `folder` go with the value.
public final class TmuxSession {
    /// The tmux server's socket name (`tmux -L`), unique to this session.
    public let socket = "keyshelf-tui-\(UUID().uuidString.prefix(8))"
    /// A temporary folder of this session (vaults, password files, `$TMPDIR`), removed at the end.
    public let folder: URL

    /// Creates the session's folder; nothing runs until `start`.
    /// - Throws: what creating the folder throws.
    public init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("keyshelf-tui-e2e-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    /// Starts `command` (a shell command line) in a `columns`×`rows` window.
    /// - Throws: `TestProcessError` when tmux cannot start.
    public func start(command: String, columns: Int = 100, rows: Int = 30) throws {
        try tmux(["-f", "/dev/null", "new-session", "-d", "-x", "\(columns)", "-y", "\(rows)", command])
    }

    /// Runs `tmux -L SOCKET arguments…` and returns its standard output (`TestProcess`: tmux forks its server).
    @discardableResult
    public func tmux(_ arguments: [String]) throws -> String {
        try TestProcess.run(["/usr/bin/tmux", "-L", socket] + arguments).stdout
    }

    /// Sends tmux key names (`Enter`, `Tab`, `Escape`, `Down`) or literal text.
    public func send(_ keys: String...) throws {
        try tmux(["send-keys"] + keys)
    }

    /// Sends `text` literally (no key-name lookup).
    public func type(_ text: String) throws {
        try tmux(["send-keys", "-l", text])
    }

    /// The pane's text now, one line per row, trailing blanks trimmed by tmux.
    public func screen() throws -> String {
        try tmux(["capture-pane", "-p"])
    }

    /// Polls the pane until `condition` holds (at most `timeout` seconds) and returns
    /// that screen once it has settled; records an issue and returns the last screen on timeout.
    @discardableResult
    public func waitFor(timeout: Double = 20, _ condition: (String) -> Bool) throws -> String {
        let deadline = Date().addingTimeInterval(timeout)
        var last = ""
        while Date() < deadline {
            last = try screen()
            if condition(last) { return try settled(last, condition) }
            Thread.sleep(forTimeInterval: 0.03)
        }
        Issue.record("timed out; the screen was:\n\(last)")
        return last
    }

    /// Polls the pane until it shows `text`; as `waitFor(timeout:_:)`.
    @discardableResult
    public func waitFor(_ text: String, timeout: Double = 20) throws -> String {
        try waitFor(timeout: timeout) { $0.contains(text) }
    }

    /// One curses refresh can reach the pane in several writes, so a capture may hold
    /// half a frame: capture again until two captures agree (or the condition stops
    /// holding, or a busy screen keeps changing), and return the fullest matching one.
    private func settled(_ first: String, _ condition: (String) -> Bool) throws -> String {
        var current = first
        for _ in 0..<10 {
            Thread.sleep(forTimeInterval: 0.02)
            let next = try screen()
            if next == current || !condition(next) { return current }
            current = next
        }
        return current
    }

    /// The pane's title, as the program set it with an escape sequence.
    public var paneTitle: String {
        get throws { try tmux(["display", "-p", "#{pane_title}"]).trimmingCharacters(in: .whitespacesAndNewlines) }
    }

    deinit {
        _ = try? tmux(["kill-server"])
        try? FileManager.default.removeItem(at: folder)
    }
}
