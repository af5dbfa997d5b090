/// `keyshelf search QUERY [--json]`: matches servers, accounts and notes;
/// never prints passwords.
struct SearchCommand: Command {
    static let spec = CommandSpec(
        name: "search", summary: "find credentials by server, account or note (no secrets)",
        positionals: [.init(name: "QUERY", help: "text to look for (case-insensitive)")],
        shared: [.json, .vault, .passwordFD])

    var query: String
    var options: SharedOptions

    init(_ arguments: ParsedArguments) throws(UsageError) {
        query = arguments.positionals[0]
        options = try SharedOptions(arguments)
    }

    func run(_ context: CommandContext) throws -> ExitCode {
        throw CLIError(.failure, "search is not built yet")
    }
}
