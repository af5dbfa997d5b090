import Foundation
import KeyshelfTestSupport
import KeyshelfCrypto
import KeyshelfVault
import Testing

/// The git credential helper driven by the real `git` (DESIGN §4):
/// `git credential fill/approve/reject`, and a `git clone` over HTTP from a
/// server on 127.0.0.1 that requires Basic auth.
@Suite struct GitCredentialTests {
    /// Runs `git` with only keyshelf as credential helper, no terminal, and
    /// no user or system configuration.
    func git(_ vault: TestVault, _ arguments: [String], helperOptions: [String] = [], stdin: String? = nil,
             in directory: URL? = nil) throws -> Run {
        let helper = ([Keyshelf.binary.path, "credential"] + helperOptions).joined(separator: " ")
        var environment = vault.environment
        environment["GIT_TERMINAL_PROMPT"] = "0"
        environment["GIT_CONFIG_NOSYSTEM"] = "1"
        environment["GIT_CONFIG_GLOBAL"] = "/dev/null"
        return try Program.runDetached(
            "/usr/bin/git", ["-c", "credential.helper=", "-c", "credential.helper=\(helper)"] + arguments,
            stdin: stdin.map { Data($0.utf8) }, environment: environment, currentDirectory: directory ?? vault.root)
    }

    /// The key=value lines of `git credential fill` output.
    func fields(_ run: Run) -> [String: String] {
        var out: [String: String] = [:]
        for line in run.lines {
            let parts = line.split(separator: "=", maxSplits: 1).map(String.init)
            if parts.count == 2 { out[parts[0]] = parts[1] }
        }
        return out
    }

    @Test func theDocumentedHelperLineWorks() throws {
        let vault = try TestVault()
        try vault.add("git.example.com", "alice", password: "via-bang", local: true)
        // `git config credential.helper '!keyshelf credential'` (docs/cli.md), with keyshelf on PATH.
        var environment = vault.environment
        environment["PATH"] = Keyshelf.binary.deletingLastPathComponent().path + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
        environment["GIT_TERMINAL_PROMPT"] = "0"
        environment["GIT_CONFIG_NOSYSTEM"] = "1"
        environment["GIT_CONFIG_GLOBAL"] = "/dev/null"
        let result = try Program.runDetached(
            "/usr/bin/git", ["-c", "credential.helper=", "-c", "credential.helper=!keyshelf credential", "credential", "fill"],
            stdin: Data("protocol=https\nhost=git.example.com\n\n".utf8), environment: environment, currentDirectory: vault.root)
        #expect(result.status == 0, "\(result)")
        #expect(fields(result)["password"] == "via-bang", "\(result)")
    }

    @Test func fillAnswersFromTheLocalStore() throws {
        let vault = try TestVault()
        try vault.add("git.example.com", "alice", password: "from-keyshelf", local: true)
        let result = try git(vault, ["credential", "fill"], stdin: "protocol=https\nhost=git.example.com\n\n")
        #expect(result.status == 0, "\(result)")
        #expect(fields(result)["username"] == "alice")
        #expect(fields(result)["password"] == "from-keyshelf")
    }

    @Test func fillReleasesSharedCredentialsOnlyWithYes() throws {
        let vault = try TestVault()
        try vault.add("git.example.com", "alice", password: "shared-pw")
        let declined = try git(vault, ["credential", "fill"], stdin: "protocol=https\nhost=git.example.com\n\n")
        #expect(declined.status != 0, "git has no credential: \(declined)")
        #expect(!declined.stdout.contains("shared-pw"))
        let approved = try git(vault, ["credential", "fill"], helperOptions: ["--yes"],
                               stdin: "protocol=https\nhost=git.example.com\n\n")
        #expect(approved.status == 0, "\(approved)")
        #expect(fields(approved)["password"] == "shared-pw")
    }

    @Test func aDeclinedReleaseWithoutATerminalSaysWhyOnStandardError() throws {
        let vault = try TestVault()
        try vault.add("example.com", "alice", password: "shared-pw")
        let helper = try vault.run(["credential", "get"], stdin: "protocol=https\nhost=example.com\n\n")
        #expect(helper.status == 0, "\(helper)")
        #expect(helper.stdout.isEmpty, "stdout belongs to git: \(helper)")
        #expect(helper.stderr == "keyshelf: releasing the saved password for \"alice\" on example.com was declined; "
                + "with no terminal to ask, use 'keyshelf credential --yes' as the helper\n", "\(helper)")
        // git passes the helper's standard error on.
        let declined = try git(vault, ["credential", "fill"], stdin: "protocol=https\nhost=example.com\n\n")
        #expect(declined.stderr.contains("use 'keyshelf credential --yes' as the helper"), "\(declined)")
    }

    @Test func aDeclinedUpdateWithoutATerminalHintsAtYes() throws {
        let vault = try TestVault()
        try vault.add("example.com", "alice", password: "old", local: true)
        let helper = try vault.run(["credential", "store"], stdin: "protocol=https\nhost=example.com\nusername=alice\npassword=new\n\n")
        #expect(helper.status == 0, "\(helper)")
        #expect(helper.stdout.isEmpty)
        #expect(helper.stderr.contains("the update was declined; with no terminal to ask, use 'keyshelf credential --yes' as the helper"), "\(helper)")
    }

    @Test func fillMatchesThePortAndTheAccount() throws {
        let vault = try TestVault()
        try vault.add("git.example.com:8443", "alice", password: "on-8443", local: true)
        try vault.add("git.example.com", "bob", password: "on-443", local: true)
        try vault.add("git.example.com", "carol", password: "carols", local: true)
        let ported = try git(vault, ["credential", "fill"], stdin: "protocol=https\nhost=git.example.com:8443\n\n")
        #expect(fields(ported)["password"] == "on-8443")
        let carol = try git(vault, ["credential", "fill"], stdin: "protocol=https\nhost=git.example.com\nusername=carol\n\n")
        #expect(fields(carol)["password"] == "carols")
    }

    @Test func approveStoresInBothStoresAndRejectErasesWithConsent() throws {
        let vault = try TestVault()
        let approve = try git(vault, ["credential", "approve"],
                              stdin: "protocol=https\nhost=git.example.com\nusername=alice\npassword=approved-pw\n\n")
        #expect(approve.status == 0, "\(approve)")
        #expect(try vault.run(["list"]).lines == ["git.example.com\talice\tlocal", "git.example.com\talice\tshared"])
        #expect(try vault.run(["get", "git.example.com", "--shared", "--yes"]).stdout == "approved-pw\n")

        let reject = "protocol=https\nhost=git.example.com\nusername=alice\npassword=approved-pw\n\n"
        let before = try vault.snapshot()
        let declined = try git(vault, ["credential", "reject"], stdin: reject)
        #expect(declined.status == 0, "\(declined)")
        #expect(try vault.snapshot() == before)
        let erased = try git(vault, ["credential", "reject"], helperOptions: ["--yes"], stdin: reject)
        #expect(erased.status == 0, "\(erased)")
        #expect(try vault.run(["list"]).stdout.isEmpty)
    }

    @Test func approveOfAChangedPasswordNeedsConsent() throws {
        let vault = try TestVault()
        try vault.add("git.example.com", "alice", password: "old", local: true)
        let input = "protocol=https\nhost=git.example.com\nusername=alice\npassword=new\n\n"
        _ = try git(vault, ["credential", "approve"], stdin: input)
        #expect(try vault.run(["get", "git.example.com", "--local"]).stdout == "old\n")
        _ = try git(vault, ["credential", "approve"], helperOptions: ["--yes"], stdin: input)
        #expect(try vault.run(["get", "git.example.com", "--local"]).stdout == "new\n")
    }

    @Test func aPasswordGitCannotCarryIsNeverSent() throws {
        let vault = try TestVault()
        // add refuses a NUL now (PasswordText); an item saved before that rule can still hold one.
        try vault.saveLegacy(Item(account: "alice", server: "git.example.com", password: Secret(utf8: "before\u{0}after")), local: true)
        let helper = try vault.run(["credential", "get"], stdin: "protocol=https\nhost=git.example.com\n\n")
        #expect(helper.status == 0, "\(helper)")
        #expect(helper.stdout.isEmpty)
        #expect(helper.stderr.contains("git cannot carry"))
    }

    @Test func withoutATerminalOrPasswordGetSaysNothingAndSucceeds() throws {
        let vault = try TestVault()
        try vault.add("git.example.com", "alice", password: "pw", local: true)
        let result = try vault.run(["credential", "get"], stdin: "protocol=https\nhost=git.example.com\n\n") {
            $0["KEYSHELF_PASSWORD_FILE"] = nil
        }
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.isEmpty)
    }

    @Test func unknownKeysAndOperationsAreIgnored() throws {
        let vault = try TestVault()
        try vault.add("git.example.com", "alice", password: "pw", local: true)
        let get = try vault.run(["credential", "get"],
                                stdin: "capability[]=authtype\nprotocol=https\nhost=git.example.com\nwwwauth[]=Basic realm=\"x\"\nfuture_key=1\n\n")
        #expect(get.stdout == "username=alice\npassword=pw\n")
        let unknown = try vault.run(["credential", "frobnicate"], stdin: "protocol=https\nhost=git.example.com\n\n")
        #expect(unknown.status == 0)
        #expect(unknown.stdout.isEmpty)
    }

    @Test(.timeLimit(.minutes(1)))
    func gitCloneOverHTTPWithBasicAuthUsesThePasswordFromKeyshelf() throws {
        let vault = try TestVault()
        let projects = vault.root.appendingPathComponent("projects")
        let repository = projects.appendingPathComponent("repo.git")
        try FileManager.default.createDirectory(at: projects, withIntermediateDirectories: true)
        let setup = """
            set -e
            git init -q --bare '\(repository.path)'
            git -C '\(repository.path)' symbolic-ref HEAD refs/heads/main
            work=$(mktemp -d '\(vault.root.path)/work.XXXX')
            cd "$work"
            git init -q
            echo 'hello from the server' > README
            git add README
            git -c user.name=test -c user.email=test@example.com commit -q -m initial
            git push -q '\(repository.path)' HEAD:refs/heads/main
            """
        let prepared = try Program.run("/bin/sh", ["-c", setup], environment: vault.environment.merging(
            ["GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": "/dev/null"]) { $1 })
        try #require(prepared.status == 0, "\(prepared)")

        let server = try GitHTTPServer(projectRoot: projects, user: "alice", password: "clone-pw")
        defer { server.stop() }
        let url = "http://127.0.0.1:\(server.port)/repo.git"
        try vault.add(url, "alice", password: "clone-pw", local: true)

        let clone = try git(vault, ["clone", "-q", url, "checkout"])
        #expect(clone.status == 0, "\(clone)")
        let readme = try String(contentsOf: vault.root.appendingPathComponent("checkout/README"), encoding: .utf8)
        #expect(readme == "hello from the server\n")
        // git approved the credential: it now sits in the shared credentials too.
        #expect(try vault.run(["list", "--shared"]).lines == ["http://127.0.0.1:\(server.port)\talice\tshared"])

        // A wrong saved password fails the clone; nothing is printed by keyshelf on stdout.
        let other = try TestVault()
        try other.add(url, "alice", password: "wrong", local: true)
        let refused = try git(other, ["clone", "-q", url, "checkout"])
        #expect(refused.status != 0)
        #expect(!FileManager.default.fileExists(atPath: other.root.appendingPathComponent("checkout/README").path))
    }
}
