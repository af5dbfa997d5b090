import Foundation
import KeyshelfTestSupport
import Testing

/// `keyshelf audit` through the real binary: exit codes, the `--json` shape,
/// the ignore flag, and never a password in any output.
@Suite struct AuditCommandTests {
    static let weak = "alice2024"
    static let shared = "Qm7-xKp-R4t-Wz9"

    private func vaultWithFindings() throws -> TestVault {
        let vault = try TestVault()
        try vault.add("example.com", "alice", password: Self.weak)
        try vault.add("example.org", "bob", password: Self.shared)
        try vault.add("other.example", "carol", password: Self.shared, local: true)
        try vault.add("http://plain.example", "dave", password: "Yt4-pqR-8Mn-Kd3")
        return vault
    }

    private func expectNoPassword(_ run: Run) {
        for password in [Self.weak, Self.shared, "Yt4-pqR-8Mn-Kd3"] {
            #expect(!run.stdout.contains(password) && !run.stderr.contains(password), "\(run)")
        }
    }

    /// A sorted SHA-1 list holding `passwords` among filler lines, made with `openssl` independently of the code under test.
    private func pwnedList(_ passwords: [String], in vault: TestVault) throws -> String {
        var lines: [String] = []
        for (i, password) in (passwords + (0..<20).map { "filler-\($0)" }).enumerated() {
            let sha1 = try Program.run("/usr/bin/python3", ["-c", "import hashlib,sys; print(hashlib.sha1(sys.argv[1].encode()).hexdigest().upper())", password],
                                       environment: nil)
            let hash = sha1.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            lines.append("\(hash):\(i + 3)")
        }
        let url = vault.root.appendingPathComponent("pwned.txt")
        try Data(lines.sorted().map { $0 + "\r\n" }.joined().utf8).write(to: url)
        return url.path
    }

    @Test func anEmptyOrCleanVaultExitsZero() throws {
        let vault = try TestVault()
        try vault.add("example.com", "alice", password: "Hv8-Mnq-Tz3-Kp5")
        let run = try vault.run(["audit", "--json"])
        #expect(run.status == 0, "\(run)")
        #expect(run.stdout == "[]\n")
    }

    @Test func findingsExitEightWithTheDocumentedJSON() throws {
        let vault = try vaultWithFindings()
        let run = try vault.run(["audit", "--json"])
        #expect(run.status == 8, "\(run)")
        expectNoPassword(run)
        let objects = try #require(try run.json() as? [[String: Any]])
        let byAccount = Dictionary(uniqueKeysWithValues: objects.map { ($0["account"] as! String, $0) })
        #expect(byAccount["alice"]?["problems"] as? [String] == ["weak"])
        #expect(byAccount["bob"]?["problems"] as? [String] == ["reused"])
        #expect(byAccount["bob"]?["store"] as? String == "shared")
        #expect(byAccount["carol"]?["store"] as? String == "local")
        #expect(byAccount["dave"]?["problems"] as? [String] == ["insecure"])
        #expect(byAccount["alice"]?["server"] as? String == "example.com")
        #expect(Set(objects.flatMap { $0.keys }).isSubset(of: ["server", "account", "store", "problems", "port"]))
        let text = try vault.run(["audit"])
        #expect(text.status == 8)
        #expect(text.stdout.contains("weak: estimated"))
        expectNoPassword(text)
    }

    @Test func theHIBPListMarksCompromisedAndBadListsAreRefused() throws {
        let vault = try vaultWithFindings()
        let list = try pwnedList([Self.shared], in: vault)
        let run = try vault.run(["audit", "--json", "--hibp", list])
        #expect(run.status == 8, "\(run)")
        expectNoPassword(run)
        let objects = try #require(try run.json() as? [[String: Any]])
        #expect(objects.first { $0["account"] as? String == "bob" }?["problems"] as? [String] == ["reused", "compromised"])
        let gz = vault.root.appendingPathComponent("pwned.txt.gz")
        try Data([0x1F, 0x8B, 8, 0, 0, 0, 0, 0]).write(to: gz)
        let refused = try vault.run(["audit", "--hibp", gz.path])
        #expect(refused.status == 2)
        #expect(refused.stderr.contains("unpack it first"))
        let both = try vault.run(["audit", "--hibp", list, "--online"])
        #expect(both.status == 2)
    }

    @Test func anIgnoredFindingIsStoredInTheVault() throws {
        let vault = try vaultWithFindings()
        #expect(try vault.run(["audit", "ignore", "insecure", "http://plain.example", "dave"]).status == 0)
        let run = try vault.run(["audit", "--json"])
        let objects = try #require(try run.json() as? [[String: Any]])
        #expect(!objects.contains { $0["account"] as? String == "dave" })
        #expect(run.stderr.contains("1 ignored finding"))
        #expect(try vault.run(["audit", "unignore", "insecure", "http://plain.example", "dave"]).status == 0)
        let again = try #require(try vault.run(["audit", "--json"]).json() as? [[String: Any]])
        #expect(again.contains { $0["account"] as? String == "dave" })
        #expect(try vault.run(["audit", "ignore", "weak", "example.com", "nobody"]).status == 3)
        #expect(try vault.run(["audit", "ignore", "bogus", "example.com", "alice"]).status == 2)
    }
}
