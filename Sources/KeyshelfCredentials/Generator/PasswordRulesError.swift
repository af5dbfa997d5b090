/// A `passwordrules` text that cannot be used: malformed, impossible to
/// satisfy, or too unlikely to satisfy by chance. The message says what to
/// change; it never contains a generated password.
///
/// Equality compares the code only, which keeps tests simple.
public struct PasswordRulesError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Code: Sendable, Equatable {
        /// The text does not follow the `passwordrules` syntax (the message names the character position).
        case syntax
        /// No password satisfies the rules (e.g. `minlength` above `maxlength`, an empty allowed set).
        case impossible
        /// Valid passwords exist but fewer than `RulePlan.minimumAcceptance` of the
        /// candidates satisfy the rules, so drawing would take too long.
        case unlikely
        /// The rules ask for more than `PasswordRecipe.maximumLength` characters.
        case tooLong
        /// The bounded number of draws found no valid password (never expected: the bound is
        /// far above what the acceptance probability needs).
        case gaveUp
    }

    public var code: Code
    /// A sentence for the user, starting with what is wrong.
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }

    public static func == (a: PasswordRulesError, b: PasswordRulesError) -> Bool { a.code == b.code }
}
