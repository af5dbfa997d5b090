import Foundation
import KeyshelfCrypto
import KeyshelfVault
import Testing

/// Issue 11 items 6–15: host confusion, and the git helper's rules as git's
/// own helper tests (t/lib-credential.sh, t0303) expect them, through the
/// real binary and, where git is involved, the real Debian `git`.
@Suite struct GitHelperRulesTests {
    let gitHelper = GitCredentialTests()

    // MARK: - Item 6: a SERVER that is not one host is refused

    @Test(arguments: ["http://site.example - user@other.example", "https://a@b@other.example", "https://user@", "https://:8443"])
    func aServerThatNamesNoSingleHostExitsTwoQuotingIt(server: String) throws {
        let vault = try TestVault()
        try vault.add("other.example", "user", password: "others-pw", local: true)
        let before = try vault.snapshot()
        let get = try vault.run(["get", "--", server])
        #expect(get.status == 2, "\(get)")
        #expect(get.stdout.isEmpty, "\(get)")
        #expect(get.stderr.contains("\"\(server)\""), "\(get)")
        let add = try vault.run(["add", "--password-stdin", "--local", "--", server, "user"], stdin: "new\n")
        #expect(add.status == 2, "\(add)")
        #expect(add.stderr.contains("\"\(server)\""), "\(add)")
        #expect(try vault.snapshot() == before)
    }

    @Test func anImportRowWhoseURLNamesNoSingleHostFailsAndUpdatesNothing() throws {
        let vault = try TestVault()
        try vault.add("other.example", "user", password: "others-pw")
        let before = try vault.snapshot()
        let file = vault.root.appendingPathComponent("rows.csv")
        try Data("name,url,username,password\nx,http://site.example - user@other.example,user,new-pw\n".utf8).write(to: file)
        let result = try vault.run(["import", file.path, "--yes"])
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.contains("imported 0, updated 0, skipped 0, failed 1"), "\(result)")
        #expect(result.stdout.contains("space in the user info"), "\(result)")
        #expect(try vault.snapshot() == before)
    }

    // MARK: - Item 7: keyshelf and git read the same host

    @Test func gitAndTheHelperReadTheSameHostFromAURL() throws {
        let vault = try TestVault()
        try vault.add("git.example.org", "bob", password: "git-org-pw", local: true)
        try vault.add("evil.example", "mallory", password: "evil-pw", local: true)
        let url = "https://bob:pw@evil.example?@git.example.org/"
        let direct = try vault.run(["credential", "get"], stdin: "url=\(url)\n\n")
        #expect(direct.status == 0, "\(direct)")
        #expect(!direct.stdout.contains("git-org-pw"), "\(direct)")
        #expect(direct.stdout.isEmpty, "bob has nothing on evil.example: \(direct)")
        // git itself, given the URL without its user info, asks the helper for evil.example.
        for hidden in ["https://evil.example?@git.example.org/", "https://evil.example#@git.example.org/"] {
            let fill = try gitHelper.git(vault, ["credential", "fill"], stdin: "url=\(hidden)\n\n")
            #expect(fill.status == 0, "\(fill)")
            #expect(gitHelper.fields(fill)["host"] == "evil.example", "\(fill)")
            #expect(gitHelper.fields(fill)["password"] == "evil-pw", "\(fill)")
            let mine = try vault.run(["credential", "get"], stdin: "url=\(hidden)\n\n")
            #expect(mine.stdout == "username=mallory\npassword=evil-pw\n", "\(mine)")
        }
    }

    @Test func aHostWithUserInfoOrAPathIsRefused() throws {
        let vault = try TestVault()
        try vault.add("git.example.org", "alice", password: "git-org-pw", local: true)
        for host in ["evil.example@git.example.org", "git.example.org/x", "exa mple.org"] {
            let result = try vault.run(["credential", "get"], stdin: "protocol=https\nhost=\(host)\n\n")
            #expect(result.status == 2, "\(host): \(result)")
            #expect(result.stdout.isEmpty)
            #expect(result.stderr.contains("host="), "\(result)")
        }
        let url = try vault.run(["credential", "get"], stdin: "url=https://a@b@git.example.org/\n\n")
        #expect(url.status == 2, "\(url)")
        #expect(url.stdout.isEmpty)
        // The message shows that user info was there instead of quoting a URL without any "@".
        #expect(url.stderr.contains("\"https://…@git.example.org/\""), "\(url)")
        #expect(url.stderr.contains("second \"@\""), "\(url)")
    }

    // MARK: - Item 9: erase removes only what matches

    @Test func eraseDoesNotEraseAPasswordDistinctFromInput() throws {
        let vault = try TestVault()
        try vault.add("git.example.com", "alice", password: "pw-one", local: true)
        let before = try vault.snapshot()
        let wrong = try vault.run(["credential", "--yes", "erase"],
                                  stdin: "protocol=https\nhost=git.example.com\nusername=alice\npassword=other\n\n")
        #expect(wrong.status == 0, "\(wrong)")
        #expect(try vault.snapshot() == before)
        let right = try vault.run(["credential", "--yes", "erase"],
                                  stdin: "protocol=https\nhost=git.example.com\nusername=alice\npassword=pw-one\n\n")
        #expect(right.status == 0, "\(right)")
        #expect(try vault.run(["list"]).stdout.isEmpty)
    }

    @Test func eraseWithoutAUsernameErasesAllMatchingCredentials() throws {
        let vault = try TestVault()
        try vault.add("git.example.com", "alice", password: "a", local: true)
        try vault.add("git.example.com", "bob", password: "b")
        try vault.add("git.example.com:8443", "carol", password: "c", local: true)
        try vault.add("http://git.example.com", "dave", password: "d", local: true)
        let erased = try vault.run(["credential", "--yes", "erase"], stdin: "protocol=https\nhost=git.example.com\n\n")
        #expect(erased.status == 0, "\(erased)")
        let rest = try vault.run(["list"]).lines
        #expect(rest.count == 2 && rest.contains { $0.hasSuffix("\tcarol\tlocal") } && rest.contains { $0.hasSuffix("\tdave\tlocal") },
                "another port or protocol is another server: \(rest)")
    }

    // MARK: - Item 11: NUL, CR and LF

    @Test(arguments: ["pass\u{0}word", "pass\rword"])
    func aValueWithNULOrCRIsNeverStored(password: String) throws {
        let vault = try TestVault()
        let before = try vault.snapshot()
        let result = try vault.run(["credential", "--yes", "store"],
                                   stdin: "protocol=https\nhost=git.example.com\nusername=alice\npassword=\(password)\n\n")
        #expect(result.status != 0, "\(result)")
        #expect(result.stderr.contains("password="), "\(result)")
        #expect(try vault.snapshot() == before)
    }

    @Test func crlfLineEndsReadAsLineEnds() throws {
        let vault = try TestVault()
        let store = try vault.run(["credential", "store"],
                                  stdin: "protocol=https\r\nhost=git.example.com\r\nusername=alice\r\npassword=crlf-pw\r\n\r\n")
        #expect(store.status == 0, "\(store)")
        #expect(try vault.run(["get", "git.example.com", "--local"]).stdout == "crlf-pw\n")
        let get = try vault.run(["credential", "get"], stdin: "protocol=https\r\nhost=git.example.com\r\n\r\n")
        #expect(get.stdout == "username=alice\npassword=crlf-pw\n", "\(get)")
    }

    @Test func aSavedPasswordWithACarriageReturnIsNotSent() throws {
        let vault = try TestVault()
        try vault.add("git.example.com", "alice", password: "a\rb", local: true)
        let get = try vault.run(["credential", "get"], stdin: "protocol=https\nhost=git.example.com\n\n")
        #expect(get.status == 0, "\(get)")
        #expect(get.stdout.isEmpty, "\(get)")
        #expect(get.stderr.contains("git cannot carry"), "\(get)")
    }

    // MARK: - Item 12: the Keychain protocols

    @Test(arguments: ["smtp", "imap", "ftp", "ssh", "ldaps"])
    func otherKeychainProtocolsAreStoredAndReturned(scheme: String) throws {
        let vault = try TestVault()
        let store = try vault.run(["credential", "store"],
                                  stdin: "protocol=\(scheme)\nhost=mail.example.com:2525\nusername=alice\npassword=\(scheme)-pw\n\n")
        #expect(store.status == 0, "\(store)")
        let get = try vault.run(["credential", "get"], stdin: "protocol=\(scheme)\nhost=mail.example.com:2525\n\n")
        #expect(get.stdout == "username=alice\npassword=\(scheme)-pw\n", "\(get)")
        let https = try vault.run(["credential", "get"], stdin: "protocol=https\nhost=mail.example.com:2525\n\n")
        #expect(https.stdout.isEmpty, "another protocol is another server: \(https)")
    }

    @Test func anUnknownProtocolIsRefusedOnStandardError() throws {
        let vault = try TestVault()
        let before = try vault.snapshot()
        let result = try vault.run(["credential", "store"],
                                   stdin: "protocol=gopher\nhost=example.com\nusername=alice\npassword=pw\n\n")
        #expect(result.status == 2, "\(result)")
        #expect(result.stderr.contains("\"gopher\""), "\(result)")
        #expect(try vault.snapshot() == before)
    }

    // MARK: - Item 13: GIT_TERMINAL_PROMPT=0

    @Test func gitTerminalPromptZeroAsksNothingOnTheTerminal() throws {
        let vault = try TestVault()
        try vault.add("git.example.com", "alice", password: "pw", local: true)
        var environment = vault.environment
        environment["KEYSHELF_PASSWORD_FILE"] = nil
        environment["GIT_TERMINAL_PROMPT"] = "0"
        let silent = try PseudoTerminal.run(["credential", "get"], steps: [
            .init(expect: "", send: "protocol=https\nhost=git.example.com\n\n"),
        ], environment: environment)
        #expect(silent.status == 0, "\(silent)")
        #expect(!silent.stdout.contains("Master password"), "\(silent)")
        #expect(!silent.stdout.contains("password=pw"), "\(silent)")
        // The control: with prompts allowed, the same run asks.
        environment["GIT_TERMINAL_PROMPT"] = nil
        let asks = try PseudoTerminal.run(["credential", "get"], steps: [
            .init(expect: "", send: "protocol=https\nhost=git.example.com\n\n"),
            .init(expect: "Master password: ", send: TestVault.masterPassword + "\n"),
        ], environment: environment)
        #expect(asks.status == 0, "\(asks)")
        #expect(asks.stdout.contains("password=pw"), "\(asks)")
    }

    /// git runs `get` then `store`: the master password typed for `get` serves
    /// the `store` too (a short-lived agent), so it is asked once per git command.
    @Test func oneGitCommandAsksTheMasterPasswordOnce() throws {
        let vault = try TestVault()
        try vault.add("git.example.com", "alice", password: "pw", local: true)
        var environment = vault.environment
        environment["KEYSHELF_PASSWORD_FILE"] = nil
        defer { _ = try? vault.run(["lock"]) }
        let get = try PseudoTerminal.run(["credential", "get"], steps: [
            .init(expect: "", send: "protocol=https\nhost=git.example.com\n\n"),
            .init(expect: "Master password: ", send: TestVault.masterPassword + "\n"),
        ], environment: environment)
        #expect(get.status == 0 && get.stdout.contains("password=pw"), "\(get)")
        // No terminal and no password source: only the agent left by `get` can open the vault.
        let store = try Keyshelf.run(["credential", "store"],
                                     stdin: Data("protocol=https\nhost=git.example.com\nusername=bob\npassword=new-pw\n\n".utf8),
                                     environment: environment)
        #expect(store.status == 0, "\(store)")
        let saved = try vault.run(["get", "git.example.com", "bob", "--yes"])
        #expect(saved.stdout == "new-pw\n", "store did not reach the vault: \(store) \(saved)")
    }

    // MARK: - Item 14: no generated password when signing in

    @Test func getOffersNoGeneratedPassword() throws {
        let vault = try TestVault()
        let result = try PseudoTerminal.run(["credential", "get"], steps: [
            .init(expect: "", send: "protocol=https\nhost=git.example.com\n\n"),
            .init(expect: "Account: ", send: "alice\n"),
            .init(expect: "Password: ", send: "typed-pw\n"),
        ], environment: vault.environment)
        #expect(result.status == 0, "\(result)")
        #expect(!result.stdout.contains("Suggested"), "\(result)")
        #expect(result.stdout.contains("password=typed-pw"), "\(result)")
    }

    // MARK: - Item 15: long lines, read in blocks

    @Test func linesUpTo64KiBAreAccepted() throws {
        let vault = try TestVault()
        try vault.add("git.example.com", "alice", password: "pw", local: true)
        let long = "wwwauth[]=Bearer realm=\"" + String(repeating: "r", count: 65_536 - 25) + "\""
        #expect(long.utf8.count == 65_536)
        let get = try vault.run(["credential", "get"], stdin: "protocol=https\n\(long)\nhost=git.example.com\n\n")
        #expect(get.stdout == "username=alice\npassword=pw\n", "\(get.status) \(get.stderr)")
        let tooLong = try vault.run(["credential", "get"], stdin: "protocol=https\n\(long)x\nhost=git.example.com\n\n")
        #expect(tooLong.status == 2, "\(tooLong.status) \(tooLong.stderr)")
        #expect(tooLong.stdout.isEmpty)
        #expect(tooLong.stderr.contains("65536 bytes"), "\(tooLong.stderr)")
    }
}
