/// `keyshelf add SERVER ACCOUNT [--generate | --password-stdin] [--local] [--yes]`.
struct AddCommand: Command {
    static let spec = CommandSpec(
        name: "add", summary: "save a password (shared credentials unless --local)",
        positionals: [
            .init(name: "SERVER", help: "host name, host:port or URL"),
            .init(name: "ACCOUNT", help: "the user name"),
        ],
        options: [
            .flag("--generate", "-g", help: "generate the password and print it"),
            .flag("--password-stdin", help: "read the password from the first line of standard input"),
        ],
        shared: [.localOnly, .yes, .vault, .passwordFD],
        discussion: """
            Without --generate or --password-stdin the password is asked on the terminal.
            Replacing a saved password asks for consent (Update Saved Password?).
            """)

    var server: String
    var account: String
    var generate: Bool
    var passwordFromStdin: Bool
    var options: SharedOptions

    init(_ arguments: ParsedArguments) throws(UsageError) {
        server = arguments.positionals[0]
        account = arguments.positionals[1]
        generate = arguments.has("--generate")
        passwordFromStdin = arguments.has("--password-stdin")
        options = try SharedOptions(arguments)
        if generate && passwordFromStdin {
            throw UsageError("--generate and --password-stdin exclude each other")
        }
    }

    func run(_ context: CommandContext) throws -> ExitCode {
        throw CLIError(.failure, "add is not built yet")
    }
}
