import Foundation
import KeyshelfCrypto
import KeyshelfVault
import Testing
@testable import KeyshelfCredentials

/// The `passwordrules` parser (WHATWG proposal whatwg/html#3518) and the checks made before drawing.
@Suite struct PasswordRulesTests {
    static func set(_ text: String) -> PasswordCharacters { PasswordCharacters(text.utf8) }

    // MARK: - Parser table

    struct Valid: Sendable, CustomStringConvertible {
        var text: String
        var required: [PasswordCharacters]
        var allowed: PasswordCharacters
        var minLength: Int? = nil
        var maxLength: Int? = nil
        var maxConsecutive: Int? = nil
        var description: String { text }
    }

    static let valid: [Valid] = [
        Valid(text: "", required: [], allowed: .asciiPrintable),
        Valid(text: "minlength: 20; required: lower; required: upper; required: digit; allowed: [-]; max-consecutive: 2",
              required: [.lower, .upper, .digit], allowed: PasswordCharacters.lower.union(.upper).union(.digit).union(set("-")),
              minLength: 20, maxConsecutive: 2),
        // One property's list is one set: a digit *or* an upper-case letter.
        Valid(text: "required: digit, upper", required: [PasswordCharacters.digit.union(.upper)], allowed: PasswordCharacters.digit.union(.upper)),
        // `allowed` unions; required sets are allowed too.
        Valid(text: "allowed: lower; allowed: [!]; required: [#]", required: [set("#")], allowed: PasswordCharacters.lower.union(set("!#"))),
        // Only lengths and runs: every ASCII printable character is allowed.
        Valid(text: "  maxlength: 12 ; minlength:8;", required: [], allowed: .asciiPrintable, minLength: 8, maxLength: 12),
        // Repeated properties: largest minlength, smallest maxlength and max-consecutive.
        Valid(text: "minlength: 8; minlength: 12; maxlength: 30; maxlength: 20; max-consecutive: 3; max-consecutive: 2",
              required: [], allowed: .asciiPrintable, minLength: 12, maxLength: 20, maxConsecutive: 2),
        // `-` first, `]` last, both literal; case-insensitive names; identical required sets merge.
        Valid(text: "Required: [-a]]; REQUIRED: [-a]]; allowed: Digit", required: [set("-a]")], allowed: PasswordCharacters.digit.union(set("-a]"))),
        Valid(text: "required: []]", required: [set("]")], allowed: set("]")),
        Valid(text: "allowed: special", required: [], allowed: set(" !\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")),
        // `unicode` allows everything; keyshelf draws ASCII printable characters for it.
        Valid(text: "allowed: unicode", required: [], allowed: .asciiPrintable),
        Valid(text: "allowed: [ a]", required: [], allowed: set(" a")),
    ]

    @Test(arguments: valid)
    func parsesValidRules(_ row: Valid) throws {
        let rules = try PasswordRules(parsing: row.text)
        #expect(rules.required == row.required)
        #expect(rules.allowed == row.allowed)
        #expect(rules.minLength == row.minLength)
        #expect(rules.maxLength == row.maxLength)
        #expect(rules.maxConsecutive == row.maxConsecutive)
        #expect(rules.text == row.text.trimmingCharacters(in: .whitespaces))
    }

    @Test func namedClassesHaveTheSpecsSizes() {
        #expect(PasswordCharacters.upper.count == 26)
        #expect(PasswordCharacters.lower.count == 26)
        #expect(PasswordCharacters.digit.count == 10)
        #expect(PasswordCharacters.special.count == 33)
        #expect(PasswordCharacters.special.contains(UInt8(ascii: " ")))
        #expect(PasswordCharacters.asciiPrintable.count == 95)
        #expect(PasswordCharacters.upper.union(.lower).union(.digit).union(.special) == .asciiPrintable)
    }

    /// Malformed text: a syntax error naming the position and the mistake.
    static let malformed: [(text: String, message: String)] = [
        ("required: digits", "at character 11: unknown character class 'digits'"),
        ("require: digit", "at character 1: unknown property 'require'"),
        ("minlength 8", "at character 11: expected ':' after 'minlength'"),
        ("minlength: eight", "at character 12: expected a whole number after 'minlength:'"),
        ("minlength: 8 maxlength: 9", "at character 14: expected ';' between properties"),
        ("required: ;", "at character 11: expected a character class after 'required:'"),
        ("allowed: [a-z]", "at character 12: '-' must come first in a custom class"),
        ("allowed: [abc", "at character 10: the custom class opened here has no closing ']'"),
        ("allowed: []", "at character 10: the custom class is empty"),
        ("allowed: [é]", "at character 11: a custom class holds ASCII printable characters only (space to '~'), not U+E9"),
        ("allowed: [a\tb]", "at character 12: a custom class holds ASCII printable characters only"),
        ("allowed: [a]b]", "at character 13: expected ';' between properties"),
        ("maxlength: 1234567", "at character 12: 'maxlength' is too large"),
        ("required: upper,", "at character 17: expected a character class after 'required:'"),
        (": digit", "at character 1: expected a property name"),
        ("required: upper; required: lower; required: digit; required: special; required: [a]; required: [b]; required: [c]; required: [d]; required: [e]; required: [f]; required: [g]; required: [h]; required: [i]",
         "at most 12 different required sets"),
    ]

    @Test(arguments: malformed.indices)
    func refusesMalformedRulesWithAClearMessage(_ index: Int) {
        let row = Self.malformed[index]
        #expect {
            _ = try PasswordRules(parsing: row.text)
        } throws: { error in
            guard let error = error as? PasswordRulesError, error.code == .syntax else { return false }
            return error.message.contains(row.message)
        }
    }

    // MARK: - Impossible and unlikely rules

    static let refused: [(text: String, length: Int?, code: PasswordRulesError.Code, message: String)] = [
        ("minlength: 30; maxlength: 10", nil, .impossible, "minlength 30 is above maxlength 10"),
        ("maxlength: 0", nil, .impossible, "maxlength: 0 leaves no password"),
        ("max-consecutive: 0", nil, .impossible, "max-consecutive: 0 forbids every character"),
        ("allowed: [a]; max-consecutive: 1; minlength: 2", nil, .impossible, "only one character is allowed"),
        ("required: upper; required: lower; required: digit; required: [!]; maxlength: 3", nil, .impossible,
         "the rules require characters of 4 separate sets, more than the 3 characters"),
        ("minlength: 20", 12, .impossible, "a length of 12 is below the rules' minlength 20"),
        ("maxlength: 10", 12, .impossible, "a length of 12 is above the rules' maxlength 10"),
        // Overlapping required sets that still cannot fit: found by the exact count.
        ("required: [ab]; required: [bc]; required: [d]; allowed: [abcd]", 1, .impossible, "no password of 1 characters satisfies these rules"),
        // Two valid passwords of 40 (abab…, baba…) among 2^40 candidates.
        ("allowed: [ab]; max-consecutive: 1; minlength: 40", nil, .unlikely, "only about 1 in 5.5e+11 random candidates"),
        ("minlength: 600", nil, .tooLong, "keyshelf generates at most 512 characters"),
    ]

    /// Refused up front with a typed error: no draw is made, so no loop can run away.
    @Test(arguments: refused.indices)
    func refusesRulesNoPasswordSatisfies(_ index: Int) throws {
        let row = Self.refused[index]
        let rules = try PasswordRules(parsing: row.text)
        #expect {
            _ = try PasswordRecipe(rules: rules, length: row.length)
        } throws: { error in
            guard let error = error as? PasswordRulesError, error.code == row.code else { return false }
            return error.message.contains(row.message)
        }
    }

    /// The acceptance probability equals the count of valid strings found by
    /// enumerating every string of small cases.
    @Test(arguments: [
        ("required: [ab]; required: [bc]; allowed: [abcd]", 4),
        ("required: [a]; allowed: [abc]; max-consecutive: 2", 6),
        ("required: [ab]; required: [c]; required: [d]; allowed: [abcde]; max-consecutive: 1", 5),
        ("allowed: [ab]; max-consecutive: 3", 8),
    ])
    func acceptanceMatchesEnumeration(_ text: String, _ length: Int) throws {
        let plan = try RulePlan(try PasswordRules(parsing: text), length: length)
        let m = plan.alphabet.count
        var valid = 0, total = 0
        var digits = [Int](repeating: 0, count: length)
        repeat {
            total += 1
            let seen = digits.reduce(UInt32(0)) { $0 | plan.masks[$1] }
            var longest = 1, run = 1
            for i in 1..<length {
                run = digits[i] == digits[i - 1] ? run + 1 : 1
                longest = max(longest, run)
            }
            if seen == plan.fullMask && longest <= plan.maxConsecutive { valid += 1 }
            var i = 0
            while i < length {
                digits[i] += 1
                if digits[i] < m { break }
                digits[i] = 0
                i += 1
            }
            if i == length { break }
        } while true
        #expect(abs(plan.acceptance - Double(valid) / Double(total)) < 1e-12, "\(plan.acceptance) vs \(valid)/\(total)")
    }

    // MARK: - Every generated password satisfies its rules

    static let ruleSets = [
        "minlength: 20; required: lower; required: upper; required: digit; allowed: [-]; max-consecutive: 2",
        "minlength: 8; maxlength: 8; required: upper; required: lower; required: digit; required: special",
        "required: digit, upper; required: [!#$]; allowed: lower; max-consecutive: 1; minlength: 12; maxlength: 16",
        "allowed: [ab]; max-consecutive: 2; minlength: 16",
        "",
    ]

    static func satisfies(_ bytes: [UInt8], _ rules: PasswordRules) -> Bool {
        guard bytes.allSatisfy(rules.allowed.contains) else { return false }
        guard rules.required.allSatisfy({ set in bytes.contains(where: set.contains) }) else { return false }
        if let min = rules.minLength, bytes.count < min { return false }
        if let max = rules.maxLength, bytes.count > max { return false }
        if let c = rules.maxConsecutive {
            var run = 0
            for i in bytes.indices {
                run = i > 0 && bytes[i] == bytes[i - 1] ? run + 1 : 1
                if run > c { return false }
            }
        }
        return true
    }

    @Test(arguments: ruleSets)
    func everyGeneratedPasswordSatisfiesTheRules(_ text: String) throws {
        let rules = try PasswordRules(parsing: text)
        let recipe = try PasswordRecipe(rules: rules)
        #expect(recipe.length == min(max(rules.minLength ?? 0, 20), rules.maxLength ?? .max))
        for _ in 0..<2_000 {
            let bytes = try recipe.generate().withUnsafeBytes { Array($0) }
            #expect(bytes.count == recipe.length)
            #expect(Self.satisfies(bytes, rules), "\(String(decoding: bytes, as: UTF8.self))")
        }
    }

    @Test func lengthAloneUsesTheDefaultsThreeSets() throws {
        let recipe = try PasswordRecipe.standardSets(length: 16)
        for _ in 0..<500 {
            let bytes = try recipe.generate().withUnsafeBytes { Array($0) }
            #expect(bytes.count == 16)
            #expect(bytes.allSatisfy(PasswordGenerator.alphabet.contains))
            for set in [PasswordGenerator.lowercase, PasswordGenerator.uppercase, PasswordGenerator.digits] {
                #expect(bytes.contains(where: set.contains))
            }
        }
        #expect(throws: PasswordRulesError(.impossible, "")) { try PasswordRecipe.standardSets(length: 2) }
    }

    /// `fill` stops after `maxAttempts` candidates when every draw is rejected
    /// (here a draw that always repeats the first character).
    @Test func theDrawLoopIsBounded() throws {
        let plan = try RulePlan(try PasswordRules(parsing: "allowed: [ab]; max-consecutive: 1"), length: 4)
        #expect(plan.maxAttempts == Int((64 / plan.acceptance).rounded(.up)))
        var draws = 0
        var buffer = [UInt8](repeating: 0, count: 4)
        #expect(throws: PasswordRulesError(.gaveUp, "")) {
            try buffer.withUnsafeMutableBytes { try plan.fill($0, uniform: { _ in draws += 1; return 0 }) }
        }
        #expect(draws == plan.maxAttempts * 2, "each rejected candidate stops at its first repeat")
    }
}

/// Saved per-domain rules in the facade: storage, lookup and the login flow's suggestion.
@Suite struct SavedPasswordRulesTests {
    @Test func savedInTheLocalStoreAndFoundForSubdomainsAndPorts() throws {
        let vault = MemoryVault()
        let shelf = try Keyshelf(vault: vault)
        try shelf.setPasswordRules("minlength: 30; allowed: [q]", for: ServerName(parsing: "Example.COM"))
        let items = try vault.loadItems()
        #expect(items.shared.isEmpty)
        #expect(items.local.map(\.service) == [SavedPasswordRules.service])
        #expect(items.local.map(\.account) == ["example.com"])
        for name in ["example.com", "a.b.example.com", "https://example.com:8443/x", "http://example.com"] {
            #expect(shelf.passwordRule(for: try ServerName(parsing: name))?.domain == "example.com", "\(name)")
        }
        #expect(shelf.passwordRule(for: try ServerName(parsing: "example.org")) == nil)
        #expect(shelf.passwordRule(for: try ServerName(parsing: "com")) == nil)
        // The more specific rule wins, and replacing one keeps one item.
        try shelf.setPasswordRules("allowed: [z]; minlength: 25", for: ServerName(parsing: "login.example.com"))
        try shelf.setPasswordRules("allowed: [z]; minlength: 26", for: ServerName(parsing: "login.example.com"))
        #expect(shelf.passwordRules().map(\.domain) == ["example.com", "login.example.com"])
        let password = try shelf.generatePassword(for: ServerName(parsing: "login.example.com"))
        #expect(password.unsafeString() == String(repeating: "z", count: 26))
        #expect(shelf.entries().isEmpty, "rules are not credentials")
    }

    @Test func theLoginFlowsSuggestionHonoursTheRule() throws {
        let shelf = try Keyshelf(vault: MemoryVault())
        try shelf.setPasswordRules("minlength: 22; allowed: [k]", for: ServerName(parsing: "example.com"))
        let prompt = ScriptedPrompt([nil])
        _ = try? shelf.login(server: ServerName(parsing: "example.com"), prompt: prompt)
        #expect(prompt.calls.first?.suggestion.unsafeString() == String(repeating: "k", count: 22))
        let other = ScriptedPrompt([nil])
        _ = try? shelf.login(server: ServerName(parsing: "example.org"), prompt: other)
        #expect(other.calls.first?.suggestion.byteCount == 15)
    }

    @Test func anUnusableSavedRuleSaysHowToFixIt() throws {
        let rule = Item(itemClass: .genericPassword, account: "example.com", service: SavedPasswordRules.service,
                        password: Secret(utf8: "minlength: 5; maxlength: 4"))
        let shelf = try Keyshelf(vault: MemoryVault(items: VaultContents(local: [rule], shared: [])))
        #expect {
            _ = try shelf.generatePassword(for: ServerName(parsing: "example.com"))
        } throws: { error in
            (error as? PasswordRulesError)?.message.contains("keyshelf rules rm example.com") == true
        }
    }
}
