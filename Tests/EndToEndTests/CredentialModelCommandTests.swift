import Foundation
import Testing

/// Issue 13 through the real binary: servers keep their scheme in `list`,
/// `get`, `rm` and `--json`; `add` changes every store holding the account
/// and says which; `get --yes` never picks among several accounts.
@Suite struct CredentialModelCommandTests {
    @Test func whatListPrintsGetAccepts() throws {
        let vault = try TestVault()
        try vault.add("http://127.0.0.1:8765", "alice", password: "plain", local: true)
        try vault.add("https://git.example.com", "bob", password: "tls", local: true)
        try vault.add("http://git.example.com", "bob2", password: "old", local: true)
        let listed = try vault.run(["list"])
        #expect(listed.lines == ["http://127.0.0.1:8765\talice\tlocal", "http://git.example.com\tbob2\tlocal", "git.example.com\tbob\tlocal"], "\(listed)")
        for line in listed.lines {
            let fields = line.split(separator: "\t").map(String.init)
            let got = try vault.run(["get", fields[0], fields[1]])
            #expect(got.status == 0, "\(line): \(got)")
        }
        // Without a scheme every protocol matches; with one, only that one.
        #expect(try vault.run(["get", "127.0.0.1:8765", "alice"]).stdout == "plain\n")
        #expect(try vault.run(["get", "https://127.0.0.1:8765", "alice"]).status == 3)
        #expect(try vault.run(["list", "git.example.com"]).lines.count == 2)
        #expect(try vault.run(["list", "http://git.example.com"]).lines == ["http://git.example.com\tbob2\tlocal"])
    }

    @Test func jsonCarriesTheProtocolOfEveryItem() throws {
        let vault = try TestVault()
        try vault.add("http://127.0.0.1:8765", "alice", password: "pw", local: true)
        try vault.add("example.com", "bob", password: "pw", local: true)
        let listed = try vault.run(["list", "--json"]).json() as? [[String: Any]]
        #expect(listed?.map { $0["protocol"] as? String } == ["http", "https"])
        #expect(listed?.first?["port"] as? Int == 8765)
        let got = try vault.run(["get", "127.0.0.1:8765", "--json"]).json() as? [String: Any]
        #expect(got?["protocol"] as? String == "http")
    }

    @Test func oneAccountAtTwoProtocolsIsAUsageErrorNamingThem() throws {
        let vault = try TestVault()
        try vault.add("http://git.example.com", "alice", password: "plain", local: true)
        try vault.add("https://git.example.com", "alice", password: "tls", local: true)
        let got = try vault.run(["get", "git.example.com", "alice"])
        #expect(got.status == 2, "\(got)")
        #expect(got.stdout.isEmpty)
        #expect(got.stderr.contains("http://git.example.com") && got.stderr.contains("several protocols"), "\(got)")
        #expect(try vault.run(["rm", "git.example.com", "alice", "--yes"]).status == 2)
        let removed = try vault.run(["rm", "http://git.example.com", "alice", "--yes"])
        #expect(removed.status == 0, "\(removed)")
        #expect(try vault.run(["get", "git.example.com", "alice"]).stdout == "tls\n")
    }

    @Test func aPasswordChangeUpdatesEveryStoreWithOneConsent() throws {
        let vault = try TestVault()
        try vault.add("example.com", "alice", password: "old")
        try vault.add("example.com", "alice", password: "old", local: true)
        let declined = try vault.run(["add", "example.com", "alice", "--password-stdin"], stdin: "new\n")
        #expect(declined.status == 4, "\(declined)")
        let changed = try vault.run(["add", "example.com", "alice", "--password-stdin", "--yes"], stdin: "new\n")
        #expect(changed.status == 0, "\(changed)")
        #expect(changed.stderr.contains("updated the password for \"alice\" on example.com in both stores"), "\(changed)")
        #expect(try vault.run(["get", "example.com", "alice", "--local"]).stdout == "new\n")
        #expect(try vault.run(["get", "example.com", "alice", "--shared", "--yes"]).stdout == "new\n")
        let narrowed = try vault.run(["add", "example.com", "alice", "--password-stdin", "--yes", "--shared"], stdin: "newer\n")
        #expect(narrowed.stderr.contains("in the shared credentials"), "\(narrowed)")
        #expect(try vault.run(["get", "example.com", "alice", "--local"]).stdout == "new\n")
    }

    @Test func getWithYesAndSeveralAccountsListsThem() throws {
        let vault = try TestVault()
        try vault.add("example.com", "alice", password: "a", local: true)
        try vault.add("example.com", "bob", password: "b")
        let got = try vault.run(["get", "example.com", "--yes"])
        #expect(got.status == 2, "\(got)")
        #expect(got.stdout.isEmpty)
        #expect(got.stderr.contains("\"alice\", \"bob\""), "\(got)")
        #expect(try vault.run(["get", "example.com", "bob", "--yes"]).stdout == "b\n")
    }
}

/// Issue 13 rules 4–5 through the real binary: generic passwords and metadata.
@Suite struct GenericPasswordCommandTests {
    @Test func addGetListAndRmAGenericPassword() throws {
        let vault = try TestVault()
        let added = try vault.run(["add", "--service", "api.example", "ci-bot", "--password-stdin"], stdin: "tok-123\n")
        #expect(added.status == 0, "\(added)")
        #expect(added.stderr.contains("of service \"api.example\" in the local store"), "\(added)")
        let synced = try vault.run(["add", "--service", "wifi", "home", "--password-stdin", "--synchronizable"], stdin: "psk\n")
        #expect(synced.stderr.contains("in the shared credentials"), "\(synced)")
        try vault.add("example.com", "alice", password: "pw")
        #expect(try vault.run(["get", "--service", "api.example"]).stdout == "tok-123\n")
        #expect(try vault.run(["get", "--service", "wifi", "home"]).stdout == "psk\n", "no release consent for a generic password")
        #expect(try vault.run(["list"]).lines == ["example.com\talice\tshared", "service:api.example\tci-bot\tlocal", "service:wifi\thome\tshared"])
        let json = try vault.run(["list", "--json"]).json() as? [[String: Any]]
        #expect(json?.compactMap { $0["service"] as? String } == ["api.example", "wifi"])
        // Never released as a shared web credential.
        #expect(try vault.run(["get", "wifi", "--yes"]).status == 3)
        #expect(try vault.run(["rm", "--service", "api.example", "ci-bot"]).status == 4)
        let removed = try vault.run(["rm", "--service", "api.example", "ci-bot", "--yes"])
        #expect(removed.status == 0, "\(removed)")
        #expect(try vault.run(["get", "--service", "api.example"]).status == 3)
        #expect(try vault.run(["add", "--service", "x", "--password-stdin"], stdin: "p\n").status == 2)
        #expect(try vault.run(["get", "--service", "x", "example.com", "alice"]).status == 2)
    }

    /// Issue 12 item 4: `search` finds generic passwords as the TUI's `/`
    /// does (service, account, label, notes) and prints them as `list` does.
    @Test func searchPrintsMatchingGenericPasswordsAsListDoes() throws {
        let vault = try TestVault()
        #expect(try vault.run(["add", "--service", "backup-tool", "robot", "--password-stdin", "--notes-stdin", "--label", "Nightly"],
                              stdin: "hunter2\nrotate in May\n").status == 0)
        #expect(try vault.run(["add", "--service", "wifi", "home", "--password-stdin", "--synchronizable"], stdin: "psk\n").status == 0)
        try vault.add("backup.example", "web", password: "pw")
        for query in ["BACKUP-TOOL", "robot", "nightly", "may"] {
            let found = try vault.run(["search", query])
            #expect(found.status == 0, "\(query): \(found)")
            #expect(found.lines == ["service:backup-tool\trobot\tlocal"], "\(query): \(found)")
        }
        // Web logins first, then the generic passwords' own group, as `list` prints them.
        #expect(try vault.run(["search", "backup"]).lines == ["backup.example\tweb\tshared", "service:backup-tool\trobot\tlocal"])
        let listed = try vault.run(["list", "--json"]).json() as? [[String: Any]]
        let json = try vault.run(["search", "E", "--json"]).json() as? [[String: Any]]
        #expect(json?.compactMap { $0["service"] as? String } == ["backup-tool", "wifi"])
        #expect(json.map { NSArray(array: $0) } == listed.map { NSArray(array: $0) }, "the same objects as `list --json`")
        #expect(json?.count == 3 && json?.allSatisfy { $0["password"] == nil } == true, "no secrets")
        let none = try vault.run(["search", "hunter2"])
        #expect(none.status == 3 && none.stdout.isEmpty, "passwords are never searched: \(none)")
        #expect(try vault.run(["search", "wifi"]).lines == ["service:wifi\thome\tshared"])
    }

    @Test func labelAndMultiLineNotesFromTheCommandLine() throws {
        let vault = try TestVault()
        let added = try vault.run(["add", "--service", "api", "ci", "--password-stdin", "--notes-stdin", "--label", "CI token"],
                                  stdin: "tok\nfirst line\nsecond line\n")
        #expect(added.status == 0, "\(added)")
        let got = try vault.run(["get", "--service", "api", "--json"]).json() as? [String: Any]
        #expect(got?["password"] as? String == "tok")
        #expect(got?["label"] as? String == "CI token")
        #expect(got?["notes"] as? String == "first line\nsecond line")
        #expect((got?["created"] as? String)?.hasSuffix("Z") == true)
    }
}

/// Issue 13 rule 5: `keyshelf edit` and `get --json`'s metadata.
@Suite struct EditCommandTests {
    @Test func labelNotesAccountServerAndStoreChange() throws {
        let vault = try TestVault()
        try vault.add("example.com", "alice", password: "pw")
        let noted = try vault.run(["edit", "example.com", "alice", "--label", "Work", "--notes-stdin"], stdin: "line one\nline two\n")
        #expect(noted.status == 0, "\(noted)")
        let got = try vault.run(["get", "example.com", "alice", "--json", "--yes"]).json() as? [String: Any]
        #expect(got?["label"] as? String == "Work")
        #expect(got?["notes"] as? String == "line one\nline two")
        #expect(got?["protocol"] as? String == "https")
        #expect(got?["created"] is String && got?["modified"] is String)
        #expect(try vault.run(["edit", "example.com", "alice", "--account", "bob"]).status == 0)
        #expect(try vault.run(["edit", "example.com", "bob", "--server", "http://example.com:8080"]).status == 0)
        #expect(try vault.run(["list"]).lines == ["http://example.com:8080\tbob\tshared"])
        let moved = try vault.run(["edit", "example.com:8080", "bob", "--move-to", "local"])
        #expect(moved.status == 0, "\(moved)")
        #expect(try vault.run(["list"]).lines == ["http://example.com:8080\tbob\tlocal"])
        #expect(try vault.run(["get", "http://example.com:8080", "bob"]).stdout == "pw\n")
        let json = try vault.run(["get", "example.com:8080", "--json"]).json() as? [String: Any]
        #expect(json?["notes"] as? String == "line one\nline two", "a move keeps the metadata")
    }

    @Test func overwritingAnItemNeedsConsentAndTheEditorNeedsATerminal() throws {
        let vault = try TestVault()
        try vault.add("example.com", "alice", password: "local", local: true)
        try vault.add("example.com", "bob", password: "other", local: true)
        #expect(try vault.run(["edit", "example.com", "bob", "--account", "alice"]).status == 4)
        let replaced = try vault.run(["edit", "example.com", "bob", "--account", "alice", "--yes"])
        #expect(replaced.status == 0, "\(replaced)")
        #expect(try vault.run(["get", "example.com", "alice"]).stdout == "other\n")
        #expect(try vault.run(["edit", "example.com", "alice", "--edit-notes"]).status == 2)
        #expect(try vault.run(["edit", "example.com", "alice"]).status == 2, "nothing to change")
    }
}
