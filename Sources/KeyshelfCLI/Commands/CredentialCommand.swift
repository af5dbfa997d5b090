/// `keyshelf credential [--yes] get|store|erase`: a git credential helper
/// (git-credential(1)); DESIGN §4 describes which steps each operation runs.
struct CredentialCommand: Command {
    static let spec = CommandSpec(
        name: "credential", summary: "git credential helper (get, store, erase)",
        positionals: [.init(name: "OPERATION", help: "get, store or erase (git passes it)")],
        shared: [.yes, .vault, .passwordFD],
        discussion: """
            Use as: git config credential.helper "keyshelf credential"
            Standard output belongs to git; prompts and dialogs use the terminal only.
            Without a terminal and without a master password, get prints nothing.
            """)

    enum Operation: String { case get, store, erase }

    var operation: Operation?
    var options: SharedOptions

    init(_ arguments: ParsedArguments) throws(UsageError) {
        // git may add operations later; the protocol says to ignore unknown ones.
        operation = Operation(rawValue: arguments.positionals[0])
        options = try SharedOptions(arguments)
    }

    func run(_ context: CommandContext) throws -> ExitCode {
        throw CLIError(.failure, "credential is not built yet")
    }
}
