import Foundation
import Testing

/// `keyshelf import` and `keyshelf export` through the real binary (DESIGN §8, docs/import.md).
@Suite struct ImportExportTests {
    /// Writes `text` to a new file in the vault's root and returns its path.
    private func file(_ vault: TestVault, _ name: String, _ text: String) throws -> String {
        let url = vault.root.appendingPathComponent(name)
        try Data(text.utf8).write(to: url)
        return url.path
    }

    private let chrome = """
        name,url,username,password,note\r
        Example,https://alice:x@Example.com:443/login,alice,"pa,ss""word","a note, with comma"\r
        Shop,https://bücher.example:8443/,bob,"two\r
        lines",\r
        App,android://hash==@com.example.app/,carol,app-pw,\r
        Empty,https://empty.example/,dave,,\r

        """

    @Test func importReportsEveryRowAndStoresTheLogins() throws {
        let vault = try TestVault()
        let path = try file(vault, "chrome.csv", chrome)
        let result = try vault.run(["import", path])
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.contains("Chrome export, 4 row(s), into the shared store"))
        #expect(result.stdout.contains("imported 3, updated 0, skipped 0, failed 1"))
        #expect(result.stdout.contains("failed row 5 (line 6): \"dave\" on empty.example: no password"))
        #expect(!result.stdout.contains("pa,ss"))
        #expect(result.stdout.contains("note row 2 (line 2): \"alice\" on example.com: the URL's user info (a user name and a password, not shown) was dropped"), "\(result)")

        let get = try vault.run(["get", "example.com", "alice", "--yes"])
        #expect(get.status == 0, "\(get)")
        #expect(get.stdout == "pa,ss\"word\n")
        let idn = try vault.run(["get", "xn--bcher-kva.example:8443", "bob", "--shared", "--yes"])
        #expect(idn.stdout == "two\r\nlines\n", "\(idn)")
    }

    @Test func dryRunWritesNothing() throws {
        let vault = try TestVault()
        let before = try vault.snapshot()
        let result = try vault.run(["import", try file(vault, "c.csv", chrome), "--dry-run", "--local"])
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.contains("would import 3, would update 0, skipped 0, failed 1 (dry run: nothing written)"))
        #expect(result.stdout.contains("into the local store"))
        #expect(try vault.snapshot() == before)
    }

    @Test func updateNeedsYesWithoutATerminal() throws {
        let vault = try TestVault()
        try vault.add("example.com", "alice", password: "old")
        let path = try file(vault, "c.csv", chrome)

        let declined = try vault.run(["import", path])
        #expect(declined.status == 0, "\(declined)")
        #expect(declined.stdout.contains("imported 2, updated 0, skipped 1, failed 1"))
        #expect(declined.stdout.contains("update declined; saved password kept"))
        #expect(declined.stderr.contains("pass --yes to approve non-interactively"), "\(declined)")
        #expect(try vault.run(["get", "example.com", "alice", "--yes"]).stdout == "old\n")

        let approved = try vault.run(["import", path, "--yes"])
        #expect(approved.stdout.contains("imported 0, updated 1, skipped 2, failed 1"), "\(approved)")
        #expect(try vault.run(["get", "example.com", "alice", "--yes"]).stdout == "pa,ss\"word\n")
    }

    @Test(arguments: [
        ("name,url,username,password\nx,https://x.example/,al,\"open\n", "line 2: a quoted field starting here is never closed"),
        ("name,url,username,password\nx,https://x.example/,a\"l,pw\n", "line 2: malformed CSV"),
        ("site,login,secret\nx,al,pw\n", "unknown header line"),
        ("name,url,username,password\nx,https://x.example/,al,pw\n" + String(repeating: ",", count: 99) + "\n",
         "line 3: a record with more than 64 fields"),
        ("name,url,username,password\n" + String(repeating: "x,https://x.example/,al,pw\n", count: 100_001),
         "line 100002: more than 100000 rows after the header"),
    ])
    func brokenFileExitsNonZeroAndChangesNothing(text: String, message: String) throws {
        let vault = try TestVault()
        try vault.add("keep.example", "me", password: "pw")
        let before = try vault.snapshot()
        let result = try vault.run(["import", try file(vault, "bad.csv", text)])
        #expect(result.status == 1, "\(result)")
        #expect(result.stderr.contains(message), "\(result)")
        #expect(try vault.snapshot() == before)
    }

    @Test func notUTF8AndMissingFilesAreRefused() throws {
        let vault = try TestVault()
        let url = vault.root.appendingPathComponent("latin1.csv")
        try Data("name,url,username,password\ncaf\u{E9},https://x.example/,al,pw\n".data(using: .isoLatin1)!).write(to: url)
        let latin1 = try vault.run(["import", url.path])
        #expect(latin1.status == 1)
        #expect(latin1.stderr.contains("line 2: not UTF-8"), "\(latin1)")
        let missing = try vault.run(["import", vault.root.appendingPathComponent("nope.csv").path])
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("No such file or directory"), "\(missing)")
    }

    @Test func unknownFormatOptionIsAUsageError() throws {
        let vault = try TestVault()
        let result = try vault.run(["import", "x.csv", "--format", "excel"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("--format expects auto, chrome, firefox, bitwarden, keepassxc, safari, 1password, lastpass"))
    }

    @Test func exportNeedsConsentThenWritesA0600FileThatImportsBack() throws {
        let vault = try TestVault()
        _ = try vault.run(["import", try file(vault, "c.csv", chrome)])
        let out = vault.root.appendingPathComponent("export.csv").path

        let declined = try vault.run(["export", out])
        #expect(declined.status == 4, "\(declined)")
        #expect(declined.stderr.contains("NOT encrypted"))
        #expect(!FileManager.default.fileExists(atPath: out))

        let exported = try vault.run(["export", out, "--yes"])
        #expect(exported.status == 0, "\(exported)")
        #expect(exported.stderr.contains("exported 2 password(s)"))
        #expect(exported.stderr.contains("1 Android app login(s) have no place in Chrome's format"), "\(exported)")
        let mode = try FileManager.default.attributesOfItem(atPath: out)[.posixPermissions] as? Int
        #expect(mode == 0o600)

        let again = try vault.run(["export", out, "--yes"])
        #expect(again.status == 1)
        #expect(again.stderr.contains("already exists"))

        let fresh = try TestVault()
        let back = try fresh.run(["import", out])
        #expect(back.stdout.contains("imported 2, updated 0, skipped 0, failed 0"), "\(back)")
        #expect(try fresh.run(["get", "example.com", "alice", "--yes"]).stdout == "pa,ss\"word\n")
        #expect(try fresh.run(["get", "bücher.example:8443", "bob", "--yes"]).stdout == "two\r\nlines\n")
    }

    @Test func theURLPathSurvivesImportAndExport() throws {
        let vault = try TestVault()
        let csv = "name,url,username,password,note\r\nA,https://a.example.com/login?next=%2F#top,alice,pw,\r\nB,https://b.example.com/,bob,pw2,\r\n"
        #expect(try vault.run(["import", try file(vault, "c.csv", csv)]).status == 0)
        let out = vault.root.appendingPathComponent("export.csv").path
        let exported = try vault.run(["export", out, "--yes"])
        #expect(exported.status == 0, "\(exported)")
        let text = try String(contentsOfFile: out, encoding: .utf8)
        #expect(text.contains("\"https://a.example.com/login\""), "\(text)")
        #expect(text.contains("\"https://b.example.com/\""), "\(text)")

        let fresh = try TestVault()
        #expect(try fresh.run(["import", out]).stdout.contains("imported 2, updated 0, skipped 0, failed 0"))
        let again = fresh.root.appendingPathComponent("again.csv").path
        #expect(try fresh.run(["export", again, "--yes"]).status == 0)
        #expect(try String(contentsOfFile: again, encoding: .utf8) == text)
    }

    @Test func anAccountInBothStoresRoundTripsAsTheLocalItem() throws {
        let vault = try TestVault()
        try vault.add("https://bücher.example:8443/", "bob", password: "local-pw", local: true)
        try vault.add("https://bücher.example:8443/", "bob", password: "shared-pw")
        try vault.add("example.com", "alice", password: "same", local: true)
        try vault.add("example.com", "alice", password: "same")
        try vault.add("example.com", "carol", password: "only-shared")
        let out = vault.root.appendingPathComponent("both.csv").path

        let exported = try vault.run(["export", out, "--yes"])
        #expect(exported.status == 0, "\(exported)")
        #expect(exported.stderr.contains("exported 3 password(s)"), "\(exported)")
        #expect(exported.stderr.contains("1 saved password(s) shadowed"), "\(exported)")
        let text = try String(contentsOfFile: out, encoding: .utf8)
        #expect(!text.contains("shared-pw"))

        let fresh = try TestVault()
        let back = try fresh.run(["import", out])
        #expect(back.status == 0, "\(back)")
        #expect(back.stdout.contains("imported 3, updated 0, skipped 0, failed 0"), "\(back)")
        #expect(try fresh.run(["get", "bücher.example:8443", "bob", "--yes"]).stdout == "local-pw\n")
        #expect(try fresh.run(["get", "example.com", "carol", "--yes"]).stdout == "only-shared\n")
    }

    @Test func exportOfAnEmptyVaultWritesNothing() throws {
        let vault = try TestVault()
        let out = vault.root.appendingPathComponent("export.csv").path
        let result = try vault.run(["export", out, "--yes"])
        #expect(result.status == 3, "\(result)")
        #expect(!FileManager.default.fileExists(atPath: out))
    }

    @Test(arguments: ["import", "export"])
    func helpDescribesTheCommand(command: String) throws {
        let vault = try TestVault(initialize: false)
        let result = try vault.run([command, "--help"])
        #expect(result.status == 0)
        #expect(result.stdout.hasPrefix("usage: keyshelf \(command)"))
    }
}

/// `export -` and `--format bitwarden|bitwarden-json` through the real binary (issue 17 items 3, 5).
@Suite struct ExportFormatTests {
    @Test func dashWritesToStandardOutputNotAFileNamedDash() throws {
        let vault = try TestVault()
        try vault.add("example.com", "alice", password: "pa\"ss")
        let result = try vault.run(["export", "-", "--format", "bitwarden-json", "--yes"])
        #expect(result.status == 0, "\(result)")
        #expect(!FileManager.default.fileExists(atPath: vault.root.appendingPathComponent("-").path))
        let json = try #require(JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let items = try #require(json["items"] as? [[String: Any]])
        #expect((items.first?["login"] as? [String: Any])?["password"] as? String == "pa\"ss")
        #expect(result.stderr.contains("NOT encrypted"))
        #expect(result.stderr.contains("exported 1 password(s) as Bitwarden JSON to standard output"), "\(result)")
    }

    @Test func chromeSaysOneTimeSecretsAreLeftOutAndBitwardenKeepsThem() throws {
        let vault = try TestVault()
        try vault.add("example.com", "alice", password: "pw")
        #expect(try vault.run(["otp", "set", "example.com", "alice"], stdin: "JBSWY3DPEHPK3PXP\n").status == 0)
        let chrome = try vault.run(["export", "-", "--yes"])
        #expect(chrome.stderr.contains("1 one-time-password secret(s) have no column in this format"), "\(chrome)")
        let csv = try vault.run(["export", "-", "--format", "bitwarden", "--yes"])
        #expect(csv.status == 0, "\(csv)")
        #expect(csv.stdout.contains("JBSWY3DPEHPK3PXP"))
        #expect(!csv.stderr.contains("one-time-password"))
        let bad = try vault.run(["export", "-", "--format", "excel"])
        #expect(bad.status == 2)
        #expect(bad.stderr.contains("--format expects chrome, bitwarden, bitwarden-json"))
    }

    @Test func declinedExportToStandardOutputPrintsNoPassword() throws {
        let vault = try TestVault()
        try vault.add("example.com", "alice", password: "secret-pw")
        let result = try vault.run(["export", "-"])
        #expect(result.status == 4, "\(result)")
        #expect(!result.stdout.contains("secret-pw"))
    }
}
