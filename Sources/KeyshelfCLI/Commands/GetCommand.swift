import KeyshelfAgent
import KeyshelfCredentials
import KeyshelfVault

/// `keyshelf get SERVER [ACCOUNT] [--local | --shared] [--json] [--yes]`:
/// prints the password on standard output.
struct GetCommand: Command {
    static let spec = CommandSpec(
        name: "get", summary: "print a saved password (local store first, then shared credentials)",
        positionals: [
            .init(name: "SERVER", help: "host name, host:port or URL"),
            .init(name: "ACCOUNT", optional: true, help: "the user name; needed when the server has several"),
        ],
        shared: [.scope, .json, .yes, .vault, .passwordFD],
        discussion: """
            A shared credential is released only with consent (Use Saved Password for DOMAIN?);
            without a terminal that needs --yes.
            """)

    var server: String
    var account: String?
    var options: SharedOptions

    init(_ arguments: ParsedArguments) throws(UsageError) {
        server = arguments.positionals[0]
        account = arguments.positionals.count > 1 ? arguments.positionals[1] : nil
        options = try SharedOptions(arguments)
    }

    func run(_ context: CommandContext) throws -> ExitCode {
        let serverName = try ServerArgument.parse(server)
        if let account { _ = try ServerArgument.account(account) }
        let record = try VaultAccess.prepare(options, context).answer(
            .get(server: serverName, account: account, filter: options.scope), yes: options.yes, value: \.record
        ) { try $0.get(server: serverName, account: account, in: options.scope) }
        guard let password = record.password else {
            throw CLIError(.failure, "the password for \(InertText.quoted(record.account)) on \(record.server.display) could not be read")
        }
        if options.json {
            try RecordOutput.printJSON(record, context)
        } else {
            RecordOutput.printPassword(password, context)
        }
        return .success
    }
}
