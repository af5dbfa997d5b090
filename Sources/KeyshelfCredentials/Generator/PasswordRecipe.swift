import KeyshelfCrypto

/// What a generated password is made of: the Shared Web Credentials default
/// (`xxx-xxx-xxx-xxx`, `PasswordGenerator`) or a `passwordrules` text at one
/// length. Everything that can go wrong is checked when the recipe is made,
/// so a recipe that exists draws passwords without surprises.
///
/// Length of a rule-based password: `length` when given (it must lie within
/// `minlength`…`maxlength`), else `max(minlength, 20)` capped by `maxlength`
/// (docs/credentials.md). The result is uniform over all valid passwords of
/// that length (`RulePlan`).
public struct PasswordRecipe: Sendable {
    /// The default length of a rule-based password when `minlength` is smaller.
    public static let defaultLength = 20
    /// The longest password keyshelf generates, in characters (= bytes: ASCII only).
    public static let maximumLength = 512

    /// `xxx-xxx-xxx-xxx` (DESIGN §3).
    public static let standard = PasswordRecipe(rules: nil, plan: nil, domain: nil)

    /// The rules, nil for the standard recipe.
    public let rules: PasswordRules?
    /// The domain whose saved rule this is (as stored, e.g. "example.com"); nil when none.
    public let domain: String?
    private let plan: RulePlan?

    private init(rules: PasswordRules?, plan: RulePlan?, domain: String?) {
        self.rules = rules
        self.plan = plan
        self.domain = domain
    }

    /// A recipe for `rules`.
    /// - Parameters:
    ///   - length: characters per password; nil chooses as described above.
    ///   - domain: where the rule was saved, for `summary`.
    /// - Throws: `PasswordRulesError` `.impossible` (a `length` outside the
    ///   rules' bounds, `minlength` above `maxlength`, …), `.tooLong`, `.unlikely`.
    public init(rules: PasswordRules, length: Int? = nil, domain: String? = nil) throws(PasswordRulesError) {
        if let min = rules.minLength, let max = rules.maxLength, min > max {
            throw PasswordRulesError(.impossible, "minlength \(min) is above maxlength \(max)")
        }
        if rules.maxLength == 0 { throw PasswordRulesError(.impossible, "maxlength: 0 leaves no password") }
        let chosen: Int
        if let length {
            if let min = rules.minLength, length < min {
                throw PasswordRulesError(.impossible, "a length of \(length) is below the rules' minlength \(min)")
            }
            if let max = rules.maxLength, length > max {
                throw PasswordRulesError(.impossible, "a length of \(length) is above the rules' maxlength \(max)")
            }
            chosen = length
        } else {
            chosen = Swift.min(Swift.max(rules.minLength ?? 0, Self.defaultLength), rules.maxLength ?? Int.max)
        }
        guard chosen <= Self.maximumLength else {
            throw PasswordRulesError(.tooLong, "keyshelf generates at most \(Self.maximumLength) characters; these rules ask for \(chosen)")
        }
        self.init(rules: rules, plan: try RulePlan(rules, length: chosen), domain: domain)
    }

    /// `length` characters from the standard recipe's three sets (53
    /// look-alike-free letters and digits), at least one of each, no hyphens:
    /// `generate --length N` without `--rules`.
    /// - Throws: like `init(rules:length:domain:)` (`.impossible` below 3 characters).
    public static func standardSets(length: Int) throws(PasswordRulesError) -> PasswordRecipe {
        let sets = [PasswordGenerator.lowercase, PasswordGenerator.uppercase, PasswordGenerator.digits]
        let text = sets.map { "required: [\(String(decoding: $0, as: UTF8.self))]" }.joined(separator: "; ")
        return try PasswordRecipe(rules: try PasswordRules(parsing: text), length: length)
    }

    /// Characters per password (15 for the standard recipe, hyphens included).
    public var length: Int { plan?.length ?? PasswordGenerator.byteCount }

    /// A line for the generator dialog: the format, or the rule and where it came from.
    public var summary: String {
        guard let rules else { return "xxx-xxx-xxx-xxx from three character sets" }
        let text = rules.text.isEmpty ? "(no rules: any ASCII printable character)" : rules.text
        return "\(length) characters, rules\(domain.map { " for \($0)" } ?? ""): \(text)"
    }

    /// A new password in secure memory.
    /// - Throws: `PasswordRulesError.gaveUp` in the (never expected) case that the
    ///   bounded number of draws found nothing.
    public func generate() throws(PasswordRulesError) -> Secret {
        guard let plan else { return PasswordGenerator.generate() }
        let storage = SecureBytes(byteCount: plan.length)
        // `withUnsafeMutableBytes` rethrows untyped errors: carry the typed one out as a Result.
        let filled = storage.withUnsafeMutableBytes { buffer in
            Result { () throws(PasswordRulesError) in try plan.fill(buffer, uniform: Random.uniform) }
        }
        try filled.get()
        return Secret(storage)
    }
}
