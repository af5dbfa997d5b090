import Foundation
import Testing

/// `keyshelf login`: the login flow of DESIGN §4 without a terminal.
@Suite struct LoginTests {
    @Test func theLocalStoreAnswersFirstWithoutConsent() throws {
        let vault = try TestVault()
        try vault.add("example.com", "alice", password: "local", local: true)
        try vault.add("example.com", "alice", password: "shared")
        let result = try vault.run(["login", "example.com", "--json"])
        #expect(result.status == 0, "\(result)")
        let json = try result.json() as? [String: Any]
        #expect(json?["password"] as? String == "local")
        #expect(json?["store"] as? String == "local")
    }

    @Test func sharedCredentialsNeedConsent() throws {
        let vault = try TestVault()
        try vault.add("example.com", "alice", password: "shared")
        let declined = try vault.run(["login", "example.com"])
        #expect(declined.status == 4, "\(declined)")
        let approved = try vault.run(["login", "example.com", "--yes"])
        #expect(approved.status == 0, "\(approved)")
        #expect(approved.stdout == "shared\n")
    }

    @Test func theCheckCommandGetsTheCredentialOnStandardInput() throws {
        let vault = try TestVault()
        try vault.add("example.com", "alice", password: "right", local: true)
        let seen = vault.root.appendingPathComponent("seen")
        let accepted = try vault.run(["login", "example.com", "--check", "cat > '\(seen.path)'"])
        #expect(accepted.status == 0, "\(accepted)")
        #expect(try String(contentsOf: seen, encoding: .utf8) == "alice\nright\n")
    }

    /// Neither the credential's password nor the master password reaches
    /// the `--check` command's environment (`/proc/$$/environ` of its shell).
    @Test func theCheckCommandsEnvironmentHoldsNoPassword() throws {
        let vault = try TestVault()
        try vault.add("example.com", "alice", password: "Zq7-item-Pw", local: true)
        let seen = vault.root.appendingPathComponent("environ")
        let result = try vault.run(["login", "example.com", "--password-fd", "3", "--check", "cat /proc/$$/environ > '\(seen.path)'"],
                                   passwordOnFD3: TestVault.masterPassword) { $0["KEYSHELF_PASSWORD_FILE"] = nil }
        #expect(result.status == 0, "\(result)")
        let environment = try Data(contentsOf: seen).split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
        #expect(environment.contains("KEYSHELF_ACCOUNT=alice"), "the command's environment was not read")
        for password in ["Zq7-item-Pw", TestVault.masterPassword] {
            #expect(!environment.contains { $0.contains(password) }, "a password is in the check command's environment")
        }
    }

    @Test func aRefusedCredentialWithNobodyToAskIsCanceled() throws {
        let vault = try TestVault()
        try vault.add("example.com", "alice", password: "wrong", local: true)
        let before = try vault.snapshot()
        let result = try vault.run(["login", "example.com", "--check", "exit 1"])
        #expect(result.status == 4, "\(result)")
        #expect(result.stdout.isEmpty)
        #expect(try vault.snapshot() == before)
    }

    @Test func nothingSavedAndNobodyToAskIsCanceled() throws {
        let vault = try TestVault()
        let result = try vault.run(["login", "example.com"])
        #expect(result.status == 4, "\(result)")
    }
}
