import Foundation
import Testing

/// `keyshelf generate --rules/--length` and `keyshelf rules` through the real binary.
@Suite struct PasswordRulesCommandTests {
    static let example = "minlength: 20; required: lower; required: upper; required: digit; allowed: [-]; max-consecutive: 2"

    static func satisfiesExample(_ password: Substring) -> Bool {
        let chars = Array(password.utf8)
        let lower: ClosedRange<UInt8> = 97...122, upper: ClosedRange<UInt8> = 65...90, digit: ClosedRange<UInt8> = 48...57
        let allowed = { (c: UInt8) -> Bool in c == 45 || lower.contains(c) || upper.contains(c) || digit.contains(c) }
        guard chars.count == 20, chars.allSatisfy(allowed) else { return false }
        guard chars.contains(where: lower.contains), chars.contains(where: upper.contains), chars.contains(where: digit.contains) else { return false }
        let tripled = (2..<chars.count).contains { (i: Int) -> Bool in chars[i] == chars[i - 1] && chars[i] == chars[i - 2] }
        return !tripled
    }

    @Test func generateWithRulesPrintsPasswordsThatSatisfyThem() throws {
        let result = try Keyshelf.run(["generate", "--rules", Self.example, "--count", "50"], environment: [:])
        #expect(result.status == 0, "\(result)")
        let lines = result.stdout.split(separator: "\n")
        #expect(lines.count == 50)
        for line in lines { #expect(Self.satisfiesExample(line), "\(line)") }
    }

    @Test func generateDefaultAndLength() throws {
        let standard = try Keyshelf.run(["generate"], environment: [:])
        #expect(standard.stdout.wholeMatch(of: /[a-zA-Z3-9]{3}(-[a-zA-Z3-9]{3}){3}\n/) != nil, "\(standard)")
        let sixteen = try Keyshelf.run(["generate", "--length", "16"], environment: [:])
        #expect(sixteen.status == 0, "\(sixteen)")
        #expect(sixteen.stdout.wholeMatch(of: /[a-hk-y3-9A-HJ-NP-Z]{16}\n/) != nil, "\(sixteen)")
        let ruled = try Keyshelf.run(["generate", "--rules", "allowed: [xy]; required: [7]", "--length", "33"], environment: [:])
        #expect(ruled.stdout.wholeMatch(of: /[xy7]{33}\n/) != nil && ruled.stdout.contains("7"), "\(ruled)")
    }

    @Test func impossibleAndMalformedRulesAreRefusedWithExitTwo() throws {
        for (rules, message) in [
            ("minlength: 30; maxlength: 10", "minlength 30 is above maxlength 10"),
            ("allowed: [a]; max-consecutive: 1; minlength: 5", "only one character is allowed"),
            ("allowed: [ab]; max-consecutive: 1; minlength: 30", "random candidates"),
            ("required: digits", "at character 11: unknown character class 'digits'"),
        ] {
            let result = try Keyshelf.run(["generate", "--rules", rules], environment: [:])
            #expect(result.status == 2, "\(result)")
            #expect(result.stderr.contains(message), "\(result)")
            #expect(result.stdout.isEmpty)
        }
        let outside = try Keyshelf.run(["generate", "--rules", "maxlength: 10", "--length", "12"], environment: [:])
        #expect(outside.status == 2 && outside.stderr.contains("above the rules' maxlength 10"), "\(outside)")
    }

    @Test func aSavedRuleIsUsedByAddGenerateForTheDomainAndItsSubdomains() throws {
        let vault = try TestVault()
        let set = try vault.run(["rules", "set", "example.com", Self.example])
        #expect(set.status == 0, "\(set)")
        #expect(set.stderr.contains("saved password rules for example.com (20 characters per generated password)"))
        let get = try vault.run(["rules", "get", "https://login.example.com/"])
        #expect(get.status == 0 && get.stdout == Self.example + "\n" && get.stderr.contains("(saved for example.com)"), "\(get)")
        #expect(try vault.run(["rules", "list"]).stdout == "example.com\t\(Self.example)\n")

        for server in ["example.com", "login.example.com"] {
            let added = try vault.run(["add", server, "alice", "--generate"])
            #expect(added.status == 0, "\(added)")
            let printed = added.stdout.dropLast()
            #expect(Self.satisfiesExample(printed), "\(added)")
            #expect(try vault.run(["get", server, "alice", "--yes"]).stdout.dropLast() == printed)
        }
        let elsewhere = try vault.run(["add", "other.org", "bob", "--generate"])
        #expect(elsewhere.stdout.wholeMatch(of: /[a-zA-Z3-9]{3}(-[a-zA-Z3-9]{3}){3}\n/) != nil, "\(elsewhere)")
        // The rule is no credential: listings do not show it.
        #expect(try !vault.run(["list"]).stdout.contains("passwordrules"))

        let removed = try vault.run(["rules", "rm", "example.com"])
        #expect(removed.status == 0, "\(removed)")
        #expect(try vault.run(["rules", "get", "example.com"]).status == 3)
        #expect(try vault.run(["rules", "rm", "example.com"]).status == 3)
        let after = try vault.run(["add", "example.com", "carol", "--generate"])
        #expect(after.stdout.wholeMatch(of: /[a-zA-Z3-9]{3}(-[a-zA-Z3-9]{3}){3}\n/) != nil, "\(after)")
    }

    @Test func rulesSetRefusesBadRulesAndSavesNothing() throws {
        let vault = try TestVault()
        let before = try vault.snapshot()
        let result = try vault.run(["rules", "set", "example.com", "minlength: 9; maxlength: 8"])
        #expect(result.status == 2 && result.stderr.contains("minlength 9 is above maxlength 8"), "\(result)")
        #expect(try vault.snapshot() == before)
        #expect(try vault.run(["rules", "set", "example.com"]).status == 2)
    }

    /// `rules get` and `rules list` print records, so they take `--json` (issue 17 item 3).
    @Test func rulesGetAndListPrintJSON() throws {
        let vault = try TestVault()
        #expect(try vault.run(["rules", "set", "example.com", "minlength: 20"]).status == 0)
        let got = try vault.run(["rules", "get", "login.example.com", "--json"])
        #expect(got.status == 0, "\(got)")
        #expect(try got.json() as? [String: String] == ["domain": "example.com", "rules": "minlength: 20"])
        let listed = try vault.run(["rules", "list", "--json"])
        #expect(try listed.json() as? [[String: String]] == [["domain": "example.com", "rules": "minlength: 20"]])
    }
}
