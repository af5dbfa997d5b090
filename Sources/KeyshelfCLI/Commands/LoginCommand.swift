/// `keyshelf login SERVER [ACCOUNT] [--check CMD] [--json] [--yes]`: the
/// login flow of DESIGN §4.
struct LoginCommand: Command {
    static let spec = CommandSpec(
        name: "login", summary: "run the login flow: local store, shared credentials, prompt, check, save",
        positionals: [
            .init(name: "SERVER", help: "host name, host:port or URL"),
            .init(name: "ACCOUNT", optional: true, help: "the user name, if known"),
        ],
        options: [
            .value("--check", valueName: "CMD",
                   help: "shell command that gets 'account\\npassword\\n' on stdin; exit 0 accepts"),
        ],
        shared: [.json, .yes, .vault, .passwordFD],
        discussion: """
            Prints the credential that was accepted (account and password; --json for all fields)
            and saves it to both stores.
            """)

    var server: String
    var account: String?
    var check: String?
    var options: SharedOptions

    init(_ arguments: ParsedArguments) throws(UsageError) {
        server = arguments.positionals[0]
        account = arguments.positionals.count > 1 ? arguments.positionals[1] : nil
        check = arguments.value("--check")
        options = try SharedOptions(arguments)
    }

    func run(_ context: CommandContext) throws -> ExitCode {
        throw CLIError(.failure, "login is not built yet")
    }
}
