import KeyshelfAgent
import KeyshelfCredentials
import KeyshelfVault

/// `keyshelf list [SERVER] [--local | --shared] [--json]`: servers and
/// accounts, never passwords.
struct ListCommand: Command {
    static let spec = CommandSpec(
        name: "list", summary: "list servers and accounts (no secrets)",
        positionals: [.init(name: "SERVER", optional: true, help: "only this server; without a scheme every protocol matches")],
        shared: [.scope, .jsonListing, .vault, .passwordFD])

    var server: String?
    var options: SharedOptions

    init(_ arguments: ParsedArguments) throws(UsageError) {
        server = arguments.positionals.first
        options = try SharedOptions(arguments)
    }

    func run(_ context: CommandContext) throws -> ExitCode {
        let serverName = try server.map(ServerArgument.pattern)
        let records = try VaultAccess.prepare(options, context).answer(
            .list(server: serverName, filter: options.scope), yes: false, value: \.records
        ) { shelf in (serverName.map { shelf.accounts(of: $0, in: options.scope) } ?? shelf.entries(in: options.scope)).map(\.record) }
        if options.json {
            try RecordOutput.printJSON(records, context)
        } else {
            RecordOutput.printLines(records, context)
        }
        if let serverName, records.isEmpty {
            throw KeychainError(.itemNotFound, "no saved password for \(serverName.display)")
        }
        return .success
    }
}
