import Foundation
import KeyshelfTestSupport
import Testing

/// Issue 11 item 10: git's `password_expiry_utc` and `oauth_refresh_token`,
/// through the real binary (docs/cli.md, "git credential helper").
@Suite struct GitHelperOAuthTests {
    static let host = "protocol=https\nhost=git.example.com\n"
    /// 2100-01-01: an expiry that has not passed.
    static let future: UInt64 = 4_102_444_800

    static func oauth(_ account: String, _ password: String, expiry: UInt64?, token: String?) -> String {
        host + "username=\(account)\npassword=\(password)\n"
            + (expiry.map { "password_expiry_utc=\($0)\n" } ?? "") + (token.map { "oauth_refresh_token=\($0)\n" } ?? "") + "\n"
    }

    func get(_ vault: TestVault) throws -> Run {
        let get = try vault.run(["credential", "get"], stdin: Self.host + "\n")
        #expect(get.status == 0, "\(get)")
        return get
    }

    @Test func storedExpiryAndRefreshTokenAreReturnedToGitOnly() throws {
        let vault = try TestVault()
        let store = try vault.run(["credential", "store"], stdin: Self.oauth("alice", "at-1", expiry: Self.future, token: "rt-1"))
        #expect(store.status == 0, "\(store)")
        #expect(try get(vault).stdout == "username=alice\npassword=at-1\npassword_expiry_utc=\(Self.future)\noauth_refresh_token=rt-1\n")
        // Other commands print the password only, never the refresh token.
        let json = try vault.run(["get", "--json", "--local", "git.example.com", "alice"])
        #expect(json.status == 0 && json.stdout.contains("at-1") && !json.stdout.contains("rt-1"), "\(json)")
    }

    @Test func anExpiredPasswordIsLeftOutButItsRefreshTokenIsReturned() throws {
        let vault = try TestVault()
        let store = try vault.run(["credential", "store"], stdin: Self.oauth("alice", "at-old", expiry: 1_000, token: "rt-1"))
        #expect(store.status == 0, "\(store)")
        #expect(try get(vault).stdout == "username=alice\noauth_refresh_token=rt-1\n")
    }

    /// No terminal and no --yes: every consent request is declined, so only
    /// a change that asks none goes through.
    @Test func rotatingAnOAuthTokenNeedsNoConsentAnOrdinaryChangeStillDoes() throws {
        let vault = try TestVault()
        #expect(try vault.run(["credential", "store"], stdin: Self.oauth("alice", "at-1", expiry: Self.future, token: "rt-1")).status == 0)
        let rotate = try vault.run(["credential", "store"], stdin: Self.oauth("alice", "at-2", expiry: Self.future + 1, token: "rt-2"))
        #expect(rotate.status == 0, "\(rotate)")
        #expect(!rotate.stderr.contains("declined"), "\(rotate)")
        #expect(try get(vault).stdout == "username=alice\npassword=at-2\npassword_expiry_utc=\(Self.future + 1)\noauth_refresh_token=rt-2\n")
        let shared = try vault.run(["get", "--shared", "--yes", "git.example.com", "alice"])
        #expect(shared.stdout == "at-2\n", "both stores rotated: \(shared)")

        // A plain password over the OAuth token is an ordinary change.
        let plain = try vault.run(["credential", "store"], stdin: Self.oauth("alice", "typed-pw", expiry: nil, token: nil))
        #expect(plain.status == 0 && plain.stderr.contains("declined"), "\(plain)")
        // An ordinary saved password keeps the consent rule.
        #expect(try vault.run(["credential", "store"], stdin: Self.oauth("bob", "pw-1", expiry: nil, token: nil)).status == 0)
        let change = try vault.run(["credential", "store"], stdin: Self.oauth("bob", "pw-2", expiry: Self.future, token: "rt-b"))
        #expect(change.status == 0 && change.stderr.contains("declined"), "\(change)")
        #expect(try vault.run(["get", "--local", "git.example.com", "bob"]).stdout == "pw-1\n")
        #expect(try vault.run(["get", "--local", "git.example.com", "alice"]).stdout == "at-2\n")
    }

    @Test func eraseRemovesTheOAuthCredential() throws {
        let vault = try TestVault()
        #expect(try vault.run(["credential", "store"], stdin: Self.oauth("alice", "at-1", expiry: 1_000, token: "rt-1")).status == 0)
        let erase = try vault.run(["credential", "--yes", "erase"], stdin: Self.host + "username=alice\n\n")
        #expect(erase.status == 0, "\(erase)")
        #expect(try get(vault).stdout.isEmpty, "an expired password's refresh token outlived erase")
    }

    /// A vault written before these fields existed (the v1 fixture) opens,
    /// answers git as before, and takes an OAuth credential.
    @Test func aVaultWrittenBeforeStillOpens() throws {
        let vault = try TestVault(initialize: false)
        let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("VaultTests/Fixtures/v1")
        try FileManager.default.copyItem(at: fixture, to: vault.directory)
        try Data("keyshelf fixture v1\n".utf8).write(to: vault.passwordFile)
        let server = "protocol=https\nhost=xn--fa-hia.example:8443\n"
        let get = try vault.run(["credential", "--yes", "get"], stdin: server + "\n")
        #expect(get.stdout == "username=marie@example.org\npassword=abc-DEF-345-ghk\n", "\(get)")
        let store = try vault.run(["credential", "--yes", "store"],
                                  stdin: server + "username=marie@example.org\npassword=at-1\noauth_refresh_token=rt-1\n\n")
        #expect(store.status == 0, "\(store)")
        let after = try vault.run(["credential", "--yes", "get"], stdin: server + "\n")
        #expect(after.stdout == "username=marie@example.org\npassword=at-1\noauth_refresh_token=rt-1\n", "\(after)")
    }
}
