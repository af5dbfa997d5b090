import KeyshelfCredentials
import KeyshelfVault

/// `keyshelf generate [--count N] [--rules "passwordrules"] [--length N]`:
/// prints passwords, one per line. Needs no vault.
///
/// Without options: Shared Web Credentials passwords (`xxx-xxx-xxx-xxx`,
/// DESIGN §3). `--rules`: the WHATWG `passwordrules` language
/// (`PasswordRules`). `--length` alone: N characters from the default's
/// three sets, one of each at least (`PasswordRecipe.standardSets`).
struct GenerateCommand: Command {
    static let spec = CommandSpec(
        name: "generate", summary: "print strong passwords (xxx-xxx-xxx-xxx, or by passwordrules); needs no vault",
        options: [
            .value("--count", "-n", valueName: "N", help: "how many passwords (1–10000, default 1)"),
            .value("--rules", valueName: "RULES",
                   help: "passwordrules, e.g. \"minlength: 20; required: lower; required: upper; required: digit; allowed: [-]; max-consecutive: 2\""),
            .value("--length", valueName: "N",
                   help: "characters per password (3–\(PasswordRecipe.maximumLength)); within the rules' minlength…maxlength"),
        ],
        discussion: """
            Without --rules or --length: xxx-xxx-xxx-xxx from three look-alike-free sets.
            --length N alone: N characters from the same three sets, one of each at least.
            --rules: classes upper, lower, digit, special, ascii-printable, unicode, [custom]
            (in [custom], '-' only first and ']' only last); each 'required' property needs
            one character of its classes. Length: --length, else max(minlength, 20) capped by
            maxlength. Passwords are uniform over all that satisfy the rules; rules that no
            password (or too few) can satisfy are refused with the reason (exit 2).
            Rules saved with 'keyshelf rules set DOMAIN' apply to add --generate, the TUI
            and the login flow.
            """)

    var count = 1
    var rules: String?
    var length: Int?

    init(_ arguments: ParsedArguments) throws(UsageError) {
        if let text = arguments.value("--count") {
            count = try ArgumentParser.integer(text, option: "--count", in: 1...10_000)
        }
        rules = arguments.value("--rules")
        if let text = arguments.value("--length") {
            length = try ArgumentParser.integer(text, option: "--length", in: 1...PasswordRecipe.maximumLength)
        }
    }

    func run(_ context: CommandContext) throws -> ExitCode {
        let recipe: PasswordRecipe
        if let rules {
            recipe = try PasswordRecipe(rules: PasswordRules(parsing: rules), length: length)
        } else if let length {
            recipe = try PasswordRecipe.standardSets(length: length)
        } else {
            recipe = .standard
        }
        for _ in 0..<count {
            RecordOutput.printPassword(try recipe.generate(), context)
        }
        return .success
    }
}
