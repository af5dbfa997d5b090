import Foundation
import KeyshelfTestSupport
import Testing
import KeyshelfCredentials
import KeyshelfCrypto
import KeyshelfVault

/// The real `keyshelf` binary in a `TmuxSession` (KeyshelfTestSupport): a
/// vault of samples and its password file in the session's folder.
extension TmuxSession {
    /// The `keyshelf` executable built next to the test bundle, or nil when it is not built.
    static var binary: URL? { BuiltProduct.named("keyshelf") }

    /// A vault (minimum KDF) holding `samples`, and a password file for it.
    convenience init(samples: [(server: String, account: String, store: Store, comment: String)]) throws {
        try self.init()
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
        try start(command: try keyshelfCommand(arguments: arguments, environment: environment) + "; echo EXITED $?; sleep 30",
                  columns: columns, rows: rows)
    }

    /// Starts `keyshelf demo` (its throwaway vault under the session's folder) in a `columns`×`rows` window.
    func startDemo(columns: Int = 100, rows: Int = 30) throws {
        let binary = try #require(TmuxSession.binary, "build the keyshelf executable first (swift build)")
        try start(command: "env TERM=xterm-256color LANG=C.UTF-8 TZ=UTC HOME=\(folder.path) TMPDIR=\(folder.path) "
                  + "XDG_CONFIG_HOME=\(folder.path) XDG_DATA_HOME=\(folder.path) \(binary.path) demo; echo EXITED $?; sleep 30",
                  columns: columns, rows: rows)
    }

    /// Starts an interactive shell with job control (prompt `shell$`) and types the
    /// `keyshelf` command line into it, for tests of Ctrl-Z and `fg`.
    func startInShell(columns: Int = 100, rows: Int = 30) throws {
        try start(command: "env PS1='shell$ ' TERM=xterm-256color /bin/bash --norc --noprofile -i", columns: columns, rows: rows)
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

    /// The records now saved, read from the vault files.
    func savedAccounts() throws -> [String] {
        let session = try VaultDirectory(url: folder.appendingPathComponent("vault")).unlock(password: Secret(utf8: "e2e-master"))
        defer { session.lock() }
        let contents = try session.contents()
        return (contents.local + contents.shared).filter { !$0.isDeleted }.map(\.account).sorted()
    }
}
