import Foundation
import Testing

/// What the messages and help texts tell a user who has to act on them: the
/// right option to pass, the item concerned, the `errSec…` status, and no
/// raw control characters from names or paths (DESIGN §7, §8).
@Suite struct MessageTests {
    let environment = ["PATH": "/usr/bin:/bin", "HOME": "/nonexistent", "LANG": "C.UTF-8"]

    @Test func passwdWithoutANewPasswordNamesTheNewPasswordSources() throws {
        let vault = try TestVault()
        let result = try vault.run(["passwd"])
        #expect(result.status == 2, "\(result)")
        #expect(result.stderr.contains("no new master password"), "\(result)")
        #expect(result.stderr.contains("--new-password-fd N"), "\(result)")
        #expect(result.stderr.contains("$KEYSHELF_NEW_PASSWORD_FILE"), "\(result)")
        #expect(!result.stderr.contains("--password-fd N"), "\(result)")
    }

    @Test func anUnreadableNewPasswordFileNamesItsVariable() throws {
        let vault = try TestVault()
        let result = try vault.run(["passwd"]) { $0["KEYSHELF_NEW_PASSWORD_FILE"] = vault.root.appendingPathComponent("missing").path }
        #expect(result.status == 1, "\(result)")
        #expect(result.stderr.contains("($KEYSHELF_NEW_PASSWORD_FILE)"), "\(result)")
    }

    @Test func noMasterPasswordNamesTheMasterPasswordSources() throws {
        let vault = try TestVault()
        let result = try vault.run(["list"]) { $0["KEYSHELF_PASSWORD_FILE"] = nil }
        #expect(result.status == 2, "\(result)")
        #expect(result.stderr.contains("no master password: there is no terminal to ask; pass --password-fd N or set $KEYSHELF_PASSWORD_FILE"))
    }

    @Test(arguments: ["list", "search"])
    func listingHelpDoesNotPromisePasswords(command: String) throws {
        let result = try Keyshelf.run([command, "--help"], environment: environment)
        let json = try #require(result.stdout.split(separator: "\n").first { $0.contains("--json") })
        #expect(json.contains("no passwords"), "\(json)")
        #expect(!json.contains("account, password"), "\(json)")
    }

    @Test(arguments: ["get", "login"])
    func credentialHelpPromisesOneObjectWithThePassword(command: String) throws {
        let result = try Keyshelf.run([command, "--help"], environment: environment)
        let json = try #require(result.stdout.split(separator: "\n").first { $0.contains("--json") })
        #expect(json.contains("one JSON object"), "\(json)")
        #expect(json.contains("password"), "\(json)")
        #expect(!json.contains("array"), "\(json)")
    }

    @Test func statusHelpDescribesItsOwnJSON() throws {
        let result = try Keyshelf.run(["status", "--help"], environment: environment)
        let json = try #require(result.stdout.split(separator: "\n").first { $0.contains("--json") })
        #expect(json.contains("secondsLeft"), "\(json)")
        #expect(!json.contains("password"), "\(json)")
    }

    @Test func listJSONReallyHasNoPassword() throws {
        let vault = try TestVault()
        try vault.add("example.com", "alice", password: "pw")
        let records = try #require(try vault.run(["list", "--json"]).json() as? [[String: Any]])
        #expect(records.count == 1)
        #expect(records.allSatisfy { $0["password"] == nil })
    }

    @Test func aDeclinedReleaseNamesTheItemAndPointsToYes() throws {
        let vault = try TestVault()
        try vault.add("github.com", "alice", password: "pw")
        let result = try vault.run(["get", "github.com", "alice"])
        #expect(result.status == 4, "\(result)")
        #expect(result.stderr.contains("\"alice\" on github.com"), "\(result)")
        #expect(result.stderr.contains("pass --yes to approve non-interactively"), "\(result)")
        #expect(result.stderr.contains("(errSecUserCanceled -128)\n"), "\(result)")
    }

    @Test func aDeclineByTheCommandItselfAlsoPointsToYes() throws {
        let vault = try TestVault()
        try vault.add("example.com", "alice", password: "pw")
        let result = try vault.run(["export", vault.root.appendingPathComponent("out.csv").path])
        #expect(result.status == 4, "\(result)")
        #expect(result.stderr.contains("--yes"), "\(result)")
        #expect(result.stderr.contains("(errSecUserCanceled -128)"), "\(result)")
    }

    @Test func aWrongMasterPasswordCarriesItsStatus() throws {
        let vault = try TestVault()
        let result = try vault.run(["list", "--password-fd", "3"], passwordOnFD3: "not the password")
        #expect(result.status == 5, "\(result)")
        #expect(result.stderr.contains("local.vault: wrong master password (errSecAuthFailed -25293)"), "\(result)")
    }

    @Test func vaultAndCLIErrorsCarryTheirStatus() throws {
        let missing = try TestVault(initialize: false)
        let noVault = try missing.run(["list"])
        #expect(noVault.status == 3)
        #expect(noVault.stderr.contains("(errSecItemNotFound -25300)"), "\(noVault)")

        let vault = try TestVault()
        let again = try vault.run(["init"])
        #expect(again.status == 6)
        #expect(again.stderr.contains("(errSecDuplicateItem -25299)"), "\(again)")
        let empty = try vault.run(["export", vault.root.appendingPathComponent("e.csv").path, "--yes"])
        #expect(empty.status == 3)
        #expect(empty.stderr.contains("nothing was written (errSecItemNotFound -25300)"), "\(empty)")
    }

    @Test func credentialHelpShowsAFormGitCanRun() throws {
        let result = try Keyshelf.run(["credential", "--help"], environment: environment)
        #expect(result.stdout.contains("git config --global credential.helper '!keyshelf credential'"), "\(result)")
        #expect(!result.stdout.contains("credential.helper \"keyshelf credential\""), "\(result)")
    }

    @Test func hostileNamesAndPathsInErrorsArePrintedInert() throws {
        let vault = try TestVault()
        let account = "ev\"il\u{1B}]0;pwned\u{07}"
        try vault.add("example.com", account, password: "old", local: true)
        let declined = try vault.run(["add", "example.com", account, "--local", "--password-stdin"], stdin: "new\n")
        #expect(declined.status == 4, "\(declined)")
        #expect(!declined.stderr.contains("\u{1B}"), "\(declined)")
        #expect(declined.stderr.contains("\"ev\\\"il\\u{1B}]0;pwned\\u{7}\""), "\(declined)")

        let removed = try vault.run(["rm", "example.com", account, "--yes"])
        #expect(removed.status == 0, "\(removed)")
        #expect(!removed.stderr.contains("\u{1B}"), "\(removed)")
        #expect(removed.stderr.contains("deleted the password for \"ev\\\"il\\u{1B}]0;pwned\\u{7}\""), "\(removed)")

        let query = try vault.run(["search", "x\u{1B}[2J"])
        #expect(query.status == 3, "\(query)")
        #expect(!query.stderr.contains("\u{1B}"), "\(query)")

        let path = vault.root.appendingPathComponent("v\u{1B}[31m").path
        let noVault = try vault.run(["list", "--vault", path])
        #expect(noVault.status == 3, "\(noVault)")
        #expect(!noVault.stderr.contains("\u{1B}"), "\(noVault)")
        #expect(noVault.stderr.contains("v\\u{1B}[31m"), "\(noVault)")
    }
}
