/// `keyshelf list [SERVER] [--local | --shared] [--json]`: servers and
/// accounts, never passwords.
struct ListCommand: Command {
    static let spec = CommandSpec(
        name: "list", summary: "list servers and accounts (no secrets)",
        positionals: [.init(name: "SERVER", optional: true, help: "only this server")],
        shared: [.scope, .json, .vault, .passwordFD])

    var server: String?
    var options: SharedOptions

    init(_ arguments: ParsedArguments) throws(UsageError) {
        server = arguments.positionals.first
        options = try SharedOptions(arguments)
    }

    func run(_ context: CommandContext) throws -> ExitCode {
        throw CLIError(.failure, "list is not built yet")
    }
}
