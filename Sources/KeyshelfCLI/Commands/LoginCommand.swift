import KeyshelfCredentials
import KeyshelfVault

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
            Prints the accepted password on standard output (the account is named on standard error; --json for all fields)
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
        let pattern = try ServerArgument.pattern(server)
        if let account { _ = try ServerArgument.account(account) }
        let session = try VaultAccess.unlock(options, context)
        defer { session.lock() }
        let prompt: any LoginPrompt = context.terminal().map { TerminalLoginPrompt(terminal: $0) } ?? NoLoginPrompt()
        let shelf = try VaultAccess.shelf(session, yes: options.yes, context)
        // A scheme-less SERVER is the one server its saved accounts are at (https when none).
        let serverName = try shelf.server(matching: pattern, account: account) ?? pattern.newServer
        let result = try shelf.login(server: serverName, account: account, prompt: prompt, check: check.map(CommandCheck.init))
        guard let password = result.record.password else {
            throw CLIError(.failure, "the login flow returned no password")
        }
        if options.json {
            try RecordOutput.printJSON(result.record, context)
        } else {
            RecordOutput.printPassword(password, context)
        }
        let source = switch result.source {
        case .local: "the local store"
        case .shared: "the shared credentials"
        case .prompt: "the prompt"
        }
        context.note("using \(InertText.quoted(result.record.account)) on \(serverName.qualified) from \(source)")
        if let saved = result.saved, saved.declined {
            context.note("the saved password was not replaced everywhere: the update was declined")
        }
        return .success
    }
}
