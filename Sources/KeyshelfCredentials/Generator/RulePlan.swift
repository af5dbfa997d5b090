import Foundation

/// How to draw passwords of one length that satisfy `PasswordRules`, checked
/// before any drawing: the alphabet, which required sets each character
/// belongs to, and the exact probability that a uniform candidate is valid.
///
/// Drawing: each character is a uniform draw from the allowed set
/// (`randombytes_uniform`) and a whole candidate missing a required set or
/// repeating a character more than `max-consecutive` times is rejected. Every
/// valid string of the length is then equally likely (rejection keeps the
/// uniform distribution restricted to the accepted strings). No class is ever
/// forced into a position.
struct RulePlan: Sendable {
    /// The allowed characters, ascending.
    let alphabet: [UInt8]
    /// For each alphabet index, bit `i` set when the character is in required set `i`.
    let masks: [UInt32]
    /// All required bits.
    let fullMask: UInt32
    /// The longest allowed run (the length when the rules set none).
    let maxConsecutive: Int
    /// Characters per password.
    let length: Int
    /// P(a uniform candidate satisfies the rules), computed exactly (inclusion–exclusion
    /// over the required sets, a run-length recursion for `max-consecutive`).
    let acceptance: Double
    /// Candidates drawn before giving up: 64 / acceptance, so a correct plan
    /// gives up with probability about e⁻⁶⁴.
    let maxAttempts: Int

    /// Rules whose acceptance is below this are refused (`.unlikely`): about a
    /// million candidates per password at worst.
    static let minimumAcceptance = 1e-6

    /// Checks `rules` for passwords of `length` characters.
    /// - Throws: `.impossible` when no password of that length satisfies them
    ///   (with the reason), `.unlikely` when the acceptance is below `minimumAcceptance`.
    init(_ rules: PasswordRules, length: Int) throws(PasswordRulesError) {
        let alphabet = rules.allowed.bytes
        guard !alphabet.isEmpty else { throw PasswordRulesError(.impossible, "the rules allow no character") }
        guard length > 0 else { throw PasswordRulesError(.impossible, "a password needs at least one character") }
        if let c = rules.maxConsecutive {
            guard c > 0 else { throw PasswordRulesError(.impossible, "max-consecutive: 0 forbids every character") }
            if alphabet.count == 1 && c < length {
                throw PasswordRulesError(.impossible, "only one character is allowed, so \(length) characters repeat it \(length) times, but max-consecutive is \(c)")
            }
        }
        let required = rules.required
        if required.count > length, required.indices.allSatisfy({ i in required.indices.allSatisfy { $0 == i || required[$0].isDisjoint(with: required[i]) } }) {
            throw PasswordRulesError(.impossible, "the rules require characters of \(required.count) separate sets, more than the \(length) characters of the password")
        }
        self.alphabet = alphabet
        masks = alphabet.map { byte in
            required.indices.reduce(UInt32(0)) { $0 | (required[$1].contains(byte) ? 1 << UInt32($1) : 0) }
        }
        fullMask = required.isEmpty ? 0 : UInt32((1 << required.count) - 1)
        maxConsecutive = min(rules.maxConsecutive ?? length, length)
        self.length = length
        acceptance = Self.acceptance(alphabetSize: alphabet.count, required: required, length: length, maxConsecutive: maxConsecutive)
        // Cancellation in the alternating sum leaves at most ~1e-12 where the true value is 0,
        // so below that "none" and "almost none" cannot be told apart.
        guard acceptance > 1e-12 else {
            throw PasswordRulesError(.impossible, "no password of \(length) characters satisfies these rules (or fewer than 1 in 10^12 random candidates do); allow more characters, relax max-consecutive or change the length")
        }
        guard acceptance >= Self.minimumAcceptance else {
            throw PasswordRulesError(.unlikely, "only about 1 in \(Self.rounded(1 / acceptance)) random candidates of \(length) characters satisfies these rules (keyshelf needs at least 1 in \(Self.rounded(1 / Self.minimumAcceptance))); allow more characters, relax max-consecutive or change the length")
        }
        maxAttempts = Int(min(64 / acceptance, Double(Int.max / 2)).rounded(.up))
    }

    /// Writes one valid password into `buffer` (`length` bytes), drawing with
    /// `uniform(n)` (a value in `0..<n`).
    /// - Throws: `.gaveUp` after `maxAttempts` rejected candidates.
    func fill(_ buffer: UnsafeMutableRawBufferPointer, uniform: (UInt32) -> UInt32) throws(PasswordRulesError) {
        precondition(buffer.count == length, "password buffer must be \(length) bytes")
        let bound = UInt32(alphabet.count)
        for _ in 0..<maxAttempts where candidate(buffer, bound: bound, uniform: uniform) { return }
        throw PasswordRulesError(.gaveUp, "no password satisfying the rules was found in \(maxAttempts) draws")
    }

    /// Draws one candidate; whether it satisfies the rules.
    private func candidate(_ buffer: UnsafeMutableRawBufferPointer, bound: UInt32, uniform: (UInt32) -> UInt32) -> Bool {
        var seen: UInt32 = 0
        var previous = -1
        var run = 0
        for position in 0..<length {
            let index = Int(uniform(bound))
            buffer[position] = alphabet[index]
            seen |= masks[index]
            run = index == previous ? run + 1 : 1
            previous = index
            // A rejected candidate needs no more draws: what follows cannot save it.
            if run > maxConsecutive { return false }
        }
        return seen == fullMask
    }

    /// P(a string of `length` uniform draws from `alphabetSize` characters holds a
    /// character of every required set and no run longer than `maxConsecutive`):
    /// Σ over subsets T of the required sets of (−1)^|T| · P(every character avoids ∪T, runs ≤ c).
    static func acceptance(alphabetSize m: Int, required: [PasswordCharacters], length: Int, maxConsecutive c: Int) -> Double {
        var coefficients: [Int: Int] = [:]  // size of alphabet ∖ ∪T → Σ (−1)^|T|
        for subset in 0..<(1 << required.count) {
            var union = PasswordCharacters()
            for (bit, set) in required.enumerated() where subset & (1 << bit) != 0 { union = union.union(set) }
            let sign = subset.nonzeroBitCount % 2 == 0 ? 1 : -1
            coefficients[m - union.count, default: 0] += sign
        }
        var total = 0.0
        for (size, coefficient) in coefficients where coefficient != 0 && size > 0 {
            total += Double(coefficient) * pow(Double(size) / Double(m), Double(length)) * runFraction(alphabetSize: size, length: length, maxConsecutive: c)
        }
        return min(max(total, 0), 1)
    }

    /// The fraction of strings of `length` over `alphabetSize` characters whose
    /// runs of one repeated character are at most `maxConsecutive` (c) long.
    ///
    /// After n characters, the fraction of valid prefixes ending in a run of r
    /// is fresh(n − r + 1) · (1/m)^(r − 1), where fresh(k) is the fraction whose
    /// k-th character starts a run. Each step starts a run (another character,
    /// (m − 1)/m) or grows one (the same, 1/m), and drops the runs of c; a ring
    /// of the last c fresh values makes it O(length).
    static func runFraction(alphabetSize m: Int, length: Int, maxConsecutive c: Int) -> Double {
        guard c < length else { return 1 }
        let same = 1 / Double(m), other = Double(m - 1) / Double(m)
        let grownToC = pow(same, Double(c - 1))
        var fresh = [Double](repeating: 0, count: c)
        fresh[1 % c] = 1
        var total = 1.0
        for n in 1..<length {
            let slot = (n + 1) % c  // holds fresh(n − c + 1): the runs now c long
            let runsOfC = fresh[slot] * grownToC
            let started = total * other
            total = started + (total - runsOfC) * same
            fresh[slot] = started
        }
        return total
    }

    /// `value` with two significant digits, e.g. "3.4e+07" or "120".
    private static func rounded(_ value: Double) -> String {
        value < 1e6 ? String(Int(value.rounded())) : String(format: "%.1e", value)
    }
}
