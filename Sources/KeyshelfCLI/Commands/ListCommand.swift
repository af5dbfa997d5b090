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
        if serverName == nil { return try listEverything(context) }
        let records = Array(try VaultAccess.opener(options, context).answer(
            .list(server: serverName, filter: options.scope), yes: false, value: \.records))
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

    /// Every web login, then the generic passwords in their own group (issue 13
    /// rule 4). The agent's `list` carries web logins only, so this opens the
    /// vault (with the agent's keys when it is unlocked: no Argon2id).
    private func listEverything(_ context: CommandContext) throws -> ExitCode {
        let session = try VaultAccess.opener(options, context).session()
        defer { session.lock() }
        let shelf = try VaultAccess.shelf(session, yes: false, context)
        let records = shelf.entries(in: options.scope).map(\.record)
        let generics = shelf.genericEntries(in: options.scope)
        if options.json {
            try RecordOutput.printJSON(records, generics: generics, context)
        } else {
            RecordOutput.printLines(records, context)
            RecordOutput.printLines(generics, context)
        }
        return .success
    }
}
