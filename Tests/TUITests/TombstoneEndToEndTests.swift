import Foundation
import KeyshelfTestSupport
import KeyshelfCrypto
import KeyshelfVault
import Testing

/// Deleting through the real binary (CLI `rm`, the git helper's `erase`, the
/// TUI's `d`) leaves tombstones that keep only the id, the primary key and
/// the stamp in the files on disk (issue 20 item 3; the domain paths are
/// `TombstoneTests`).
@Suite(.serialized) struct TombstoneEndToEndTests {
    static let samples: [(server: String, account: String, store: Store, comment: String)] = [
        ("example.com", "anna", .shared, "recovery codes: 1234"),
        ("example.com", "anna", .local, "recovery codes: 5678"),
        ("example.com", "bernd", .local, ""),
    ]

    /// A vault of `samples`, each given a label, notes and a one-time seed; returns the session and the items as saved.
    static func filledVault() throws -> (TmuxSession, [Item]) {
        let tmux = try TmuxSession(samples: samples)
        let session = try VaultDirectory(url: tmux.folder.appendingPathComponent("vault")).unlock(password: Secret(utf8: "e2e-master"))
        defer { session.lock() }
        let items = try session.modify { contents -> [Item] in
            func fill(_ items: inout [Item]) {
                for i in items.indices {
                    items[i].label = "Work login"
                    if items[i].comment.isEmpty { items[i].comment = "notes of \(items[i].account)" }
                    items[i].otpauth = "otpauth://totp/example.com:\(items[i].account)?secret=JBSWY3DPEHPK3PXP"
                }
            }
            fill(&contents.local)
            fill(&contents.shared)
            return contents.local + contents.shared
        }
        return (tmux, items)
    }

    /// Reads the vault files back and checks that exactly the items named
    /// `deleted` (account, store) became tombstones keeping nothing else.
    static func expectTombstones(_ tmux: TmuxSession, of items: [Item], deleted: Set<String>,
                                 sourceLocation: SourceLocation = #_sourceLocation) throws {
        let session = try VaultDirectory(url: tmux.folder.appendingPathComponent("vault")).unlock(password: Secret(utf8: "e2e-master"))
        defer { session.lock() }
        let contents = try session.contents()
        for original in items {
            let name = "\(original.account)/\(original.synchronizable ? "shared" : "local")"
            let now = try #require((contents.local + contents.shared).first { $0.id == original.id }, "\(name) is gone")
            guard deleted.contains(name) else {
                #expect(!now.isDeleted && now.otpauth == original.otpauth, "\(name) must be untouched", sourceLocation: sourceLocation)
                continue
            }
            #expect(now.isDeleted, "\(name) not deleted", sourceLocation: sourceLocation)
            #expect(now.hasPrimaryKey(of: original), sourceLocation: sourceLocation)
            #expect(now.password == nil && now.label.isEmpty && now.comment.isEmpty && now.otpauth.isEmpty,
                    "\(name)'s tombstone keeps label \(now.label.debugDescription), notes \(now.comment.debugDescription), seed \(now.otpauth.debugDescription)",
                    sourceLocation: sourceLocation)
            #expect(now.modificationDate > original.modificationDate, sourceLocation: sourceLocation)
        }
    }

    /// Runs `keyshelf --vault DIR arguments` without a terminal (`setsid`), the master password from the file.
    static func run(_ tmux: TmuxSession, _ arguments: [String], stdin: String = "") throws -> Int32 {
        let binary = try #require(TmuxSession.binary, "build the keyshelf executable first (swift build)")
        let environment = ["PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "HOME": tmux.folder.path,
                           "KEYSHELF_PASSWORD_FILE": tmux.folder.appendingPathComponent("password").path]
        return try Program.runDetached(binary.path, ["--vault", tmux.folder.appendingPathComponent("vault").path] + arguments,
                                       stdin: Data(stdin.utf8), environment: environment).status
    }

    @Test func cliRmOfBothStores() throws {
        let (tmux, items) = try Self.filledVault()
        #expect(try Self.run(tmux, ["rm", "example.com", "anna", "--yes"]) == 0)
        try Self.expectTombstones(tmux, of: items, deleted: ["anna/shared", "anna/local"])
    }

    @Test func gitCredentialErase() throws {
        let (tmux, items) = try Self.filledVault()
        #expect(try Self.run(tmux, ["credential", "--yes", "erase"], stdin: "protocol=https\nhost=example.com\nusername=anna\n\n") == 0)
        try Self.expectTombstones(tmux, of: items, deleted: ["anna/shared", "anna/local"])
    }

    @Test func tuiDeleteOfALocalItem() throws {
        let (tmux, items) = try Self.filledVault()
        try tmux.start(columns: 100, rows: 30)
        try tmux.waitFor("Accounts of example.com")
        // Accounts: anna (local), anna (shared), bernd (local only), the last one.
        try tmux.send("Tab", "j", "j")
        try tmux.send("d")
        try tmux.waitFor("Delete Saved Password?")
        try tmux.send("Tab", "Enter")
        try tmux.waitFor("Deleted bernd")
        try tmux.send("q")
        try tmux.waitFor("EXITED 0")
        try Self.expectTombstones(tmux, of: items, deleted: ["bernd/local"])
    }
}
