import Foundation
import KeyshelfCrypto
import KeyshelfVault
import Testing
@testable import KeyshelfCredentials

/// The per-position chi-square test of `PasswordGeneratorTests`, for rule-based
/// passwords, on the generators users get: `PasswordRecipe.generate()`
/// (`generate --rules`) and `Keyshelf.generatePassword(for:)` with a saved rule
/// (`add --generate`, the login suggestion, the TUI's `KeyshelfShelf`).
///
/// Expected frequencies are exact: for each position and character, the number
/// of valid strings holding that character there, counted by a dynamic program
/// over (required sets seen, current run, group of the last character) that
/// shares nothing with the generator.
@Suite struct RuleGeneratorUniformityTests {
    static let ruleSets = [
        "minlength: 20; required: lower; required: upper; required: digit; allowed: [-]; max-consecutive: 2",
        "minlength: 12; maxlength: 12; required: upper; required: lower; required: digit; required: special",
    ]
    static let sampleCount = 12_000

    /// P(position i holds each character) under the uniform distribution over valid strings.
    static func expected(_ rules: PasswordRules, length: Int) -> [[UInt8: Double]] {
        let alphabet = rules.allowed.bytes
        func mask(_ c: UInt8) -> UInt32 {
            rules.required.indices.reduce(0) { $0 | (rules.required[$1].contains(c) ? 1 << UInt32($1) : 0) }
        }
        let full = UInt32((1 << rules.required.count) - 1)
        let c = rules.maxConsecutive ?? length
        // Characters with equal masks are interchangeable: one representative each.
        let classes = Dictionary(grouping: alphabet, by: mask)
        struct State: Hashable { var mask: UInt32; var run: Int; var last: Int }
        /// Valid strings with `x` (of class `k`) at `position`.
        func count(position: Int, x k: UInt32) -> Double {
            // Groups: x alone, the rest of its class, then each other class.
            var groups: [(size: Double, mask: UInt32)] = [(1, k), (Double(classes[k]!.count - 1), k)]
            for (other, members) in classes where other != k { groups.append((Double(members.count), other)) }
            var states: [State: Double] = [State(mask: 0, run: 0, last: -1): 1]
            for p in 0..<length {
                var next: [State: Double] = [:]
                for (state, ways) in states {
                    for g in (p == position ? [0] : Array(groups.indices)) where groups[g].size > 0 {
                        let m = state.mask | groups[g].mask
                        if g == state.last {
                            if state.run + 1 <= c { next[State(mask: m, run: state.run + 1, last: g), default: 0] += ways }
                            if groups[g].size > 1 { next[State(mask: m, run: 1, last: g), default: 0] += ways * (groups[g].size - 1) }
                        } else {
                            next[State(mask: m, run: 1, last: g), default: 0] += ways * groups[g].size
                        }
                    }
                }
                states = next
            }
            return states.filter { $0.key.mask == full }.values.reduce(0, +)
        }
        return (0..<length).map { position in
            let perClass = classes.mapValues { _ in 0.0 }.keys.map { ($0, count(position: position, x: $0)) }
            let total = perClass.reduce(0.0) { $0 + Double(classes[$1.0]!.count) * $1.1 }
            var out: [UInt8: Double] = [:]
            for (k, n) in perClass { for ch in classes[k]! { out[ch] = n / total } }
            return out
        }
    }

    /// The chi-square value exceeded with probability 1e-8 for `df` degrees of
    /// freedom (Wilson–Hilferty; 131.5 for 52, where the exact value is 130.8).
    static func threshold(df: Int) -> Double {
        let k = Double(df), z = 5.612
        return k * pow(1 - 2 / (9 * k) + z * (2 / (9 * k)).squareRoot(), 3)
    }

    /// Per-position chi-square statistics of `sampleCount` passwords from `generate`.
    static func chiSquares(_ expected: [[UInt8: Double]], samples sampleCount: Int = sampleCount,
                           _ generate: () throws -> [UInt8]) rethrows -> [Double] {
        let length = expected.count
        var counts = [Int](repeating: 0, count: length * 256)
        for _ in 0..<sampleCount {
            let bytes = try generate()
            for (position, byte) in bytes.enumerated() { counts[position * 256 + Int(byte)] += 1 }
        }
        return (0..<length).map { position in
            expected[position].reduce(0.0) { sum, entry in
                let e = entry.value * Double(sampleCount)
                let d = Double(counts[position * 256 + Int(entry.key)]) - e
                return sum + d * d / e
            }
        }
    }

    static func bytes(_ secret: Secret) -> [UInt8] { secret.withUnsafeBytes { Array($0) } }

    @Test func theExpectationIsADistributionThatFavoursNoClassUnfairly() throws {
        let rules = try PasswordRules(parsing: Self.ruleSets[1])
        let expected = Self.expected(rules, length: 12)
        for position in expected { #expect(abs(position.values.reduce(0, +) - 1) < 1e-9) }
        // Digits (10) are rarer than letters (26): a valid string over-represents each digit.
        #expect(expected[0][UInt8(ascii: "5")]! > 1.0 / 95)
        #expect(expected[0][UInt8(ascii: "5")]! > expected[0][UInt8(ascii: "q")]!)
    }

    /// The generators users get, for each rule set.
    @Test(arguments: [0, 1], [false, true])
    func theGeneratorsUsersGetAreUniformPerPosition(ruleSet: Int, throughSavedRule: Bool) throws {
        let rules = try PasswordRules(parsing: Self.ruleSets[ruleSet])
        let recipe = try PasswordRecipe(rules: rules)
        let expected = Self.expected(rules, length: recipe.length)
        let generate: () throws -> [UInt8]
        if throughSavedRule {
            let shelf = try Keyshelf(vault: MemoryVault())
            try shelf.setPasswordRules(Self.ruleSets[ruleSet], for: ServerName(parsing: "example.com"))
            let site = try ServerName(parsing: "https://login.example.com/signup")
            generate = { Self.bytes(try shelf.generatePassword(for: site)) }
        } else {
            generate = { Self.bytes(try recipe.generate()) }
        }
        let stats = try Self.chiSquares(expected, generate)
        let limit = Self.threshold(df: rules.allowed.count - 1)
        for (position, chi) in stats.enumerated() {
            #expect(chi < limit, "rule set \(ruleSet) position \(position): chi-square \(chi) (limit \(limit))")
        }
    }

    /// Forcing a digit into the last position (redrawing until valid): the test must reject it.
    @Test func theTestRejectsAFixedPositionGenerator() throws {
        let rules = try PasswordRules(parsing: Self.ruleSets[1])
        let recipe = try PasswordRecipe(rules: rules)
        let stats = try Self.chiSquares(Self.expected(rules, length: 12)) {
            var chars: [UInt8]
            repeat {
                chars = Self.bytes(try recipe.generate())
                chars[11] = UInt8(ascii: "0") + UInt8(Random.uniform(10))
            } while !rules.required.allSatisfy { set in chars.contains(where: set.contains) }
            return chars
        }
        #expect(stats[11] > Self.threshold(df: 94), "\(stats)")
    }

    /// A byte-modulo draw (`byte % 63`: four characters come 5/4 as often) in
    /// the rule generator's own loop: the test must reject it.
    @Test func theTestRejectsAByteModuloDraw() throws {
        let rules = try PasswordRules(parsing: Self.ruleSets[0])
        let plan = try RulePlan(rules, length: 20)
        // No secure allocation per password here, so more samples: the bias adds about 60 per position at 40k.
        let stats = try Self.chiSquares(Self.expected(rules, length: 20), samples: 40_000) {
            var buffer = [UInt8](repeating: 0, count: 20)
            try buffer.withUnsafeMutableBytes { try plan.fill($0, uniform: { UInt32(Random.bytes(1)[0]) % $0 }) }
            return buffer
        }
        #expect(stats.contains { $0 > Self.threshold(df: 62) }, "\(stats)")
    }
}
