import Foundation
import Testing

/// `add --sign-in-with-apple` and how list, get, login, audit and the git
/// helper treat such an account, through the real binary (issue 19 item 1).
@Suite struct SignInWithAppleCommandTests {
    let relay = "x7k2@privaterelay.appleid.com"

    func vaultWithAppleAccount() throws -> TestVault {
        let vault = try TestVault()
        let added = try vault.run(["add", "shop.example", relay, "--sign-in-with-apple", "--forwarding-to", "me@example.net",
                                   "--since", "2026-03-01", "--label", "Shop"])
        #expect(added.status == 0, "\(added)")
        #expect(added.stderr.contains("Sign in with Apple account"))
        #expect(added.stderr.contains("Hide My Email relay"))
        return vault
    }

    @Test func listMarksTheAccountAndItsRelay() throws {
        let vault = try vaultWithAppleAccount()
        try vault.add("shop.example", "bob", password: "pw")
        let list = try vault.run(["list", "--json"])
        #expect(list.status == 0, "\(list)")
        let rows = try #require(try list.json() as? [[String: Any]])
        let apple = try #require(rows.first { $0["account"] as? String == relay })
        #expect(apple["signInWith"] as? String == "apple")
        #expect(apple["relay"] as? Bool == true)
        #expect(apple["password"] == nil)
        let bob = try #require(rows.first { $0["account"] as? String == "bob" })
        #expect(bob["signInWith"] == nil && bob["relay"] == nil)
    }

    @Test func getExits3SayingThereIsNoPasswordToRelease() throws {
        let vault = try vaultWithAppleAccount()
        let get = try vault.run(["get", "shop.example", "--yes"])
        #expect(get.status == 3, "\(get)")
        #expect(get.stdout.isEmpty)
        #expect(get.stderr.contains("signs in with Apple: there is no password to release"), "\(get)")
    }

    @Test func loginReturnsTheAccountWithoutAPassword() throws {
        let vault = try vaultWithAppleAccount()
        let login = try vault.run(["login", "shop.example", "--json"])
        #expect(login.status == 0, "\(login)")
        let json = try #require(try login.json() as? [String: Any])
        #expect(json["account"] as? String == relay)
        #expect(json["signInWith"] as? String == "apple")
        #expect(json["password"] == nil)
        let plain = try vault.run(["login", "shop.example"])
        #expect(plain.status == 0 && plain.stdout.isEmpty, "\(plain)")
        #expect(plain.stderr.contains("Apple Account → Sign-In & Security"))
    }

    @Test func auditFindsNothingToReport() throws {
        let vault = try TestVault()
        for account in [relay, "y@privaterelay.appleid.com"] {
            #expect(try vault.run(["add", "http://shop.example", account, "--sign-in-with-apple"]).status == 0)
        }
        let audit = try vault.run(["audit", "--json"])
        #expect(audit.status == 0, "\(audit)")
    }

    @Test func theGitHelperIgnoresIt() throws {
        let vault = try TestVault()
        #expect(try vault.run(["add", "git.example.com", relay, "--sign-in-with-apple", "--local"]).status == 0)
        let get = try vault.run(["credential", "--yes", "get"], stdin: "protocol=https\nhost=git.example.com\n\n")
        #expect(get.status == 0 && get.stdout.isEmpty, "\(get)")
        let erase = try vault.run(["credential", "--yes", "erase"], stdin: "protocol=https\nhost=git.example.com\nusername=\(relay)\n\n")
        #expect(erase.status == 0, "\(erase)")
        let store = try vault.run(["credential", "--yes", "store"],
                                  stdin: "protocol=https\nhost=git.example.com\nusername=\(relay)\npassword=pw\n\n")
        #expect(store.status == 0, "\(store)")
        let list = try #require(try vault.run(["list", "--json"]).json() as? [[String: Any]])
        #expect(list.count == 1 && list.first?["signInWith"] as? String == "apple")
        #expect(try vault.run(["get", "git.example.com", relay]).status == 3)
    }

    @Test func rmRemovesItAfterConsentAndSearchFindsIt() throws {
        let vault = try vaultWithAppleAccount()
        let found = try #require(try vault.run(["search", "privaterelay", "--json"]).json() as? [[String: Any]])
        #expect(found.count == 1 && found.first?["signInWith"] as? String == "apple")
        #expect(try vault.run(["rm", "shop.example", relay]).status == 4)
        #expect(try vault.run(["rm", "shop.example", relay, "--yes"]).status == 0)
        #expect(try vault.run(["list", "shop.example"]).status == 3)
    }

    @Test func hostileOptionsAreUsageErrors() throws {
        let vault = try TestVault()
        for arguments in [
            ["add", "shop.example", "a", "--sign-in-with-apple", "--password-stdin"],
            ["add", "shop.example", "a", "--forwarding-to", "me@example.net"],
            ["add", "shop.example", "a", "--sign-in-with-apple", "--since", "2026-13-01"],
            ["add", "shop.example", "a", "--sign-in-with-apple", "--since", "yesterday"],
        ] {
            let result = try vault.run(arguments, stdin: "pw\n")
            #expect(result.status == 2, "\(arguments): \(result)")
        }
        // An existing password account is not turned into an Apple one, nor the reverse.
        try vault.add("shop.example", "bob", password: "pw")
        #expect(try vault.run(["add", "shop.example", "bob", "--sign-in-with-apple"]).status == 6)
        #expect(try vault.run(["add", "shop.example", relay, "--sign-in-with-apple"]).status == 0)
        #expect(try vault.run(["add", "shop.example", relay, "--password-stdin", "--yes"], stdin: "pw\n").status == 6)
    }
}
