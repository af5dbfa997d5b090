import Foundation
import Testing

/// `generate`, `add`, `get`, `list`, `search` and `rm` through the real
/// binary: happy paths, JSON shapes, consent without a terminal, bad input.
@Suite struct CredentialCommandTests {
    @Test func generatePrintsTheRequestedNumberOfWellFormedPasswords() throws {
        let result = try Keyshelf.run(["generate", "--count", "20"], environment: ["PATH": "/usr/bin:/bin"])
        #expect(result.status == 0)
        #expect(result.lines.count == 20)
        let pattern = try Regex("^[a-hk-y3-9A-HJ-NP-Z]{3}(-[a-hk-y3-9A-HJ-NP-Z]{3}){3}$")
        for line in result.lines {
            #expect(line.wholeMatch(of: pattern) != nil, "\(line)")
        }
        #expect(Set(result.lines).count == 20)
    }

    @Test func addThenGetPrintsThePassword() throws {
        let vault = try TestVault()
        let added = try vault.add("example.com", "alice", password: "s3cret pass")
        #expect(added.stdout.isEmpty)
        #expect(added.stderr.contains("shared credentials"))
        let local = try vault.add("example.com", "bob", password: "local pw", local: true)
        #expect(local.stderr.contains("local store"))
        // The local store needs no consent.
        let bob = try vault.run(["get", "example.com", "bob"])
        #expect(bob.status == 0, "\(bob)")
        #expect(bob.stdout == "local pw\n")
        // A shared password is released only with consent; --yes gives it.
        let alice = try vault.run(["get", "example.com", "alice", "--yes"])
        #expect(alice.status == 0, "\(alice)")
        #expect(alice.stdout == "s3cret pass\n")
    }

    @Test func serversAreNormalisedSoSpellingsMeetOneRecord() throws {
        let vault = try TestVault()
        try vault.add("bücher.example", "alice", password: "pw", local: true)
        for spelling in ["xn--bcher-kva.example", "https://BÜCHER.example:443/x", "BÜCHER.EXAMPLE."] {
            let result = try vault.run(["get", spelling, "alice"])
            #expect(result.status == 0, "\(spelling): \(result)")
            #expect(result.stdout == "pw\n")
        }
    }

    @Test func getJSONHasTheFieldsOfSharedWebCredentials() throws {
        let vault = try TestVault()
        try vault.add("example.com", "alice", password: "p\"w\\x", local: true)
        try vault.add("example.com:8443", "carol", password: "pw2")
        let plain = try vault.run(["get", "example.com", "--json"]).json() as? [String: Any]
        #expect(plain?["server"] as? String == "example.com")
        #expect(plain?["account"] as? String == "alice")
        #expect(plain?["password"] as? String == "p\"w\\x")
        #expect(plain?["store"] as? String == "local")
        #expect(plain?["port"] == nil)
        let ported = try vault.run(["get", "example.com:8443", "--json", "--yes"]).json() as? [String: Any]
        #expect(ported?["port"] as? Int == 8443)
        #expect(ported?["store"] as? String == "shared")
        #expect(Set(ported?.keys.map { $0 } ?? []) == ["server", "account", "password", "port", "protocol", "store", "label", "notes", "created", "modified"])
    }

    @Test func listShowsBothStoresAndNoSecrets() throws {
        let vault = try TestVault()
        try vault.add("example.com", "alice", password: "secret-one", local: true)
        try vault.add("example.org", "bob", password: "secret-two")
        let all = try vault.run(["list"])
        #expect(all.status == 0)
        #expect(all.lines == ["example.com\talice\tlocal", "example.org\tbob\tshared"])
        #expect(!all.stdout.contains("secret"))
        #expect(try vault.run(["list", "--local"]).lines == ["example.com\talice\tlocal"])
        #expect(try vault.run(["list", "--shared"]).lines == ["example.org\tbob\tshared"])
        let json = try vault.run(["list", "--json"]).json() as? [[String: Any]]
        #expect(json?.count == 2)
        #expect(json?.allSatisfy { $0["password"] == nil } == true)
        #expect(json?.first?["store"] as? String == "local")
        let one = try vault.run(["list", "example.org"])
        #expect(one.lines == ["example.org\tbob\tshared"])
    }

    @Test func listOfAnEmptyVaultIsEmptyAndSucceeds() throws {
        let vault = try TestVault()
        let result = try vault.run(["list", "--json"])
        #expect(result.status == 0)
        #expect(result.stdout == "[]\n")
    }

    @Test func searchMatchesServersAndAccountsWithoutSecrets() throws {
        let vault = try TestVault()
        try vault.add("mail.example.com", "alice", password: "findme-not")
        try vault.add("bank.example", "bob", password: "x")
        let byServer = try vault.run(["search", "MAIL"])
        #expect(byServer.lines == ["mail.example.com\talice\tshared"])
        let byAccount = try vault.run(["search", "bob", "--json"]).json() as? [[String: Any]]
        #expect(byAccount?.first?["server"] as? String == "bank.example")
        let none = try vault.run(["search", "findme"])
        #expect(none.status == 3, "\(none)")
        #expect(none.stdout.isEmpty)
    }

    @Test func unknownServerOrAccountExitsThree() throws {
        let vault = try TestVault()
        try vault.add("example.com", "alice", password: "pw")
        for arguments in [["get", "nothere.example"], ["get", "example.com", "bob", "--yes"], ["rm", "example.com", "bob", "--yes"], ["list", "nothere.example"]] {
            let result = try vault.run(arguments)
            #expect(result.status == 3, "\(arguments): \(result)")
            #expect(result.stderr.contains("errSecItemNotFound"))
            #expect(result.stdout.isEmpty || arguments[0] == "list")
        }
    }

    @Test(arguments: ["exa mple.com", "-bad-.example", "https://", "example.com:99999", "ftp://example.com"])
    func invalidServersExitTwoQuotingTheInput(server: String) throws {
        let vault = try TestVault()
        let before = try vault.snapshot()
        let result = try vault.run(["add", "--password-stdin", "--", server, "alice"], stdin: "pw\n")
        #expect(result.status == 2, "\(result)")
        #expect(result.stderr.contains("\"\(server)\""), "\(result)")
        #expect(try vault.snapshot() == before)
    }

    @Test func emptyAccountExitsTwo() throws {
        let vault = try TestVault()
        let result = try vault.run(["add", "example.com", "", "--password-stdin"], stdin: "pw\n")
        #expect(result.status == 2, "\(result)")
        #expect(result.stderr.contains("account is empty"))
    }

    @Test(arguments: ["", "\n"])
    func passwordOnAClosedOrEmptyStdinExitsTwoAndSavesNothing(input: String) throws {
        let vault = try TestVault()
        let before = try vault.snapshot()
        let result = try vault.run(["add", "example.com", "alice", "--password-stdin"], stdin: input)
        #expect(result.status == 2, "\(result)")
        #expect(result.stderr.contains("standard input") || result.stderr.contains("empty"))
        #expect(try vault.snapshot() == before)
    }

    @Test func addWithoutAPasswordSourceAndNoTerminalExitsTwo() throws {
        let vault = try TestVault()
        let result = try vault.run(["add", "example.com", "alice"])
        #expect(result.status == 2, "\(result)")
        #expect(result.stderr.contains("--password-stdin"))
    }

    @Test func addGeneratePrintsTheGeneratedPasswordAndSavesIt() throws {
        let vault = try TestVault()
        let added = try vault.run(["add", "example.com", "alice", "--generate", "--local"])
        #expect(added.status == 0, "\(added)")
        #expect(added.lines.count == 1)
        #expect(added.stdout.count == 16)
        #expect(try vault.run(["get", "example.com", "alice"]).stdout == added.stdout)
    }

    @Test func updatingASavedPasswordWithoutATerminalIsDeclined() throws {
        let vault = try TestVault()
        try vault.add("example.com", "alice", password: "old")
        let before = try vault.snapshot()
        let declined = try vault.run(["add", "example.com", "alice", "--password-stdin"], stdin: "new\n")
        #expect(declined.status == 4, "\(declined)")
        #expect(declined.stderr.contains("errSecUserCanceled"))
        #expect(try vault.snapshot() == before)
        let approved = try vault.run(["add", "example.com", "alice", "--password-stdin", "--yes"], stdin: "new\n")
        #expect(approved.status == 0, "\(approved)")
        #expect(try vault.run(["get", "example.com", "alice", "--yes"]).stdout == "new\n")
    }

    @Test func releasingASharedPasswordWithoutATerminalIsDeclined() throws {
        let vault = try TestVault()
        try vault.add("example.com", "alice", password: "pw")
        let result = try vault.run(["get", "example.com"])
        #expect(result.status == 4, "\(result)")
        #expect(result.stdout.isEmpty)
    }

    @Test func rmAsksConsentAndDeletesFromBothStores() throws {
        let vault = try TestVault()
        try vault.add("example.com", "alice", password: "a", local: true)
        try vault.add("example.com", "alice", password: "b")
        let before = try vault.snapshot()
        let declined = try vault.run(["rm", "example.com", "alice"])
        #expect(declined.status == 4, "\(declined)")
        #expect(try vault.snapshot() == before)
        let onlyLocal = try vault.run(["rm", "example.com", "alice", "--local", "--yes"])
        #expect(onlyLocal.status == 0, "\(onlyLocal)")
        #expect(try vault.run(["list"]).lines == ["example.com\talice\tshared"])
        let rest = try vault.run(["rm", "example.com", "alice", "--yes"])
        #expect(rest.status == 0, "\(rest)")
        #expect(try vault.run(["list"]).stdout.isEmpty)
    }

    @Test func rmSaysWhichStoresItDeletedFrom() throws {
        let vault = try TestVault()
        try vault.add("example.com", "alice", password: "a", local: true)
        try vault.add("example.com", "alice", password: "b")
        try vault.add("example.com", "bob", password: "c", local: true)
        try vault.add("example.com", "bob", password: "d")
        let onlyLocal = try vault.run(["rm", "example.com", "alice", "--local", "--yes"])
        #expect(onlyLocal.stderr == "keyshelf: deleted the password for \"alice\" on example.com from the local store\n", "\(onlyLocal)")
        let rest = try vault.run(["rm", "example.com", "alice", "--yes"])
        #expect(rest.stderr == "keyshelf: deleted the password for \"alice\" on example.com from the shared credentials\n", "\(rest)")
        let both = try vault.run(["rm", "example.com", "bob", "--yes"])
        #expect(both.stderr == "keyshelf: deleted the password for \"bob\" on example.com from both stores\n", "\(both)")
    }

    @Test func hostileCharactersInNamesArePrintedInert() throws {
        let vault = try TestVault()
        let account = "evil\u{1B}]0;pwned\u{07}\u{1B}[2J"
        try vault.add("example.com", account, password: "pw", local: true)
        let list = try vault.run(["list"])
        #expect(list.status == 0)
        #expect(!list.stdout.contains("\u{1B}"))
        #expect(list.stdout.contains("evil\\u{1B}]0;pwned\\u{7}"))
        // JSON carries the exact account, escaped.
        let json = try vault.run(["list", "--json"]).json() as? [[String: Any]]
        #expect(json?.first?["account"] as? String == account)
        #expect(try vault.run(["get", "example.com", account]).stdout == "pw\n")
    }

    @Test func aPasswordWithUnicodeRoundTrips() throws {
        let vault = try TestVault()
        let password = "pâss wörd 🔑 \t end"
        try vault.add("example.com", "alice", password: password, local: true)
        #expect(try vault.run(["get", "example.com"]).stdout == password + "\n")
        let json = try vault.run(["get", "example.com", "--json"]).json() as? [String: Any]
        #expect(json?["password"] as? String == password)
    }
}
