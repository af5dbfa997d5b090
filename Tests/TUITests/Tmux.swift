import Foundation
import KeyshelfTestSupport
import Testing
import KeyshelfCredentials
import KeyshelfCrypto
import KeyshelfVault
@testable import KeyshelfTUI

/// The real `keyshelf` binary in a detached tmux server of its own (PLATFORM.md):
/// keys go in with `send-keys`, the screen comes back with `capture-pane`,
/// polled until the expected text appears.
final class TmuxSession {
    let socket = "keyshelf-tui-\(UUID().uuidString.prefix(8))"
    let folder: URL

    /// The `keyshelf` executable built next to the test bundle, or nil when it is not built.
    static var binary: URL? { BuiltProduct.named("keyshelf") }

    /// A vault (minimum KDF) holding `samples`, and a password file for it.
    init(samples: [(server: String, account: String, store: Store, comment: String)]) throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("keyshelf-tui-e2e-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let session = try VaultDirectory(url: folder.appendingPathComponent("vault"))
            .create(password: Secret(utf8: "e2e-master"), limits: .minimum)
        let keyshelf = try Keyshelf(vault: session, consent: ApproveAll())
        for s in samples {
            try keyshelf.add(server: try ServerName(parsing: s.server), account: s.account,
                             password: Secret(utf8: "pw-\(s.account)"), to: s.store, comment: s.comment)
        }
        session.lock()
        try "e2e-master\n".write(to: folder.appendingPathComponent("password"), atomically: true, encoding: .utf8)
    }

    /// Starts `keyshelf --vault DIR` (password from the file) in a `columns`×`rows` window.
    func start(columns: Int = 100, rows: Int = 30, arguments: String = "", environment: String = "") throws {
        let command = try keyshelfCommand(arguments: arguments, environment: environment) + "; echo EXITED $?; sleep 30"
        try tmux(["-f", "/dev/null", "new-session", "-d", "-x", "\(columns)", "-y", "\(rows)", command])
    }

    /// Starts an interactive shell with job control (prompt `shell$`) and types the
    /// `keyshelf` command line into it, for tests of Ctrl-Z and `fg`.
    func startInShell(columns: Int = 100, rows: Int = 30) throws {
        try tmux(["-f", "/dev/null", "new-session", "-d", "-x", "\(columns)", "-y", "\(rows)",
                  "env PS1='shell$ ' TERM=xterm-256color /bin/bash --norc --noprofile -i"])
        try waitFor("shell$")
        try type(try keyshelfCommand(arguments: "", environment: ""))
        try send("Enter")
    }

    /// `env … keyshelf --vault DIR arguments`, the password from the file; `environment` overrides the defaults.
    private func keyshelfCommand(arguments: String, environment: String) throws -> String {
        let binary = try #require(TmuxSession.binary, "build the keyshelf executable first (swift build)")
        let vault = folder.appendingPathComponent("vault").path
        return "env TERM=xterm-256color LANG=C.UTF-8 XDG_CONFIG_HOME=\(folder.path) \(environment) "
            + "KEYSHELF_PASSWORD_FILE=\(folder.appendingPathComponent("password").path) "
            + "\(binary.path) --vault \(vault) \(arguments)"
    }

    /// Runs `tmux -L SOCKET arguments…` and returns its standard output (`TestProcess`: tmux forks its server).
    @discardableResult
    func tmux(_ arguments: [String]) throws -> String {
        try TestProcess.run(["/usr/bin/tmux", "-L", socket] + arguments).output
    }

    /// Sends tmux key names (`Enter`, `Tab`, `Escape`, `Down`) or literal text.
    func send(_ keys: String...) throws {
        try tmux(["send-keys"] + keys)
    }

    /// Sends `text` literally (no key-name lookup).
    func type(_ text: String) throws {
        try tmux(["send-keys", "-l", text])
    }

    func screen() throws -> String {
        try tmux(["capture-pane", "-p"])
    }

    /// Polls the pane until `condition` holds (at most `timeout` seconds) and returns
    /// that screen once it has settled.
    @discardableResult
    func waitFor(timeout: Double = 20, _ condition: (String) -> Bool) throws -> String {
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

    @discardableResult
    func waitFor(_ text: String, timeout: Double = 20) throws -> String {
        try waitFor(timeout: timeout) { $0.contains(text) }
    }

    var paneTitle: String {
        get throws { try tmux(["display", "-p", "#{pane_title}"]).trimmingCharacters(in: .whitespacesAndNewlines) }
    }

    /// The records now saved, read from the vault files.
    func savedAccounts() throws -> [String] {
        let session = try VaultDirectory(url: folder.appendingPathComponent("vault")).unlock(password: Secret(utf8: "e2e-master"))
        defer { session.lock() }
        let contents = try session.contents()
        return (contents.local + contents.shared).filter { !$0.isDeleted }.map(\.account).sorted()
    }

    deinit {
        _ = try? tmux(["kill-server"])
        try? FileManager.default.removeItem(at: folder)
    }
}

struct TmuxError: Error {
    var message: String
}
