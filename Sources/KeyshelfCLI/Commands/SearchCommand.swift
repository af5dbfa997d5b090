import KeyshelfCredentials
import KeyshelfVault

/// `keyshelf search QUERY [--json]`: matches servers, accounts, labels and notes;
/// never prints passwords.
struct SearchCommand: Command {
    static let spec = CommandSpec(
        name: "search", summary: "find credentials by server, account, label or note (no secrets)",
        positionals: [.init(name: "QUERY", help: "text to look for (case-insensitive)")],
        shared: [.jsonListing, .vault, .passwordFD])

    var query: String
    var options: SharedOptions

    init(_ arguments: ParsedArguments) throws(UsageError) {
        query = arguments.positionals[0]
        options = try SharedOptions(arguments)
    }

    func run(_ context: CommandContext) throws -> ExitCode {
        let session = try VaultAccess.unlock(options, context)
        defer { session.lock() }
        let entries = try VaultAccess.shelf(session, yes: false, context).search(query)
        if options.json {
            try RecordOutput.printJSON(entries.map(\.record), context)
        } else {
            RecordOutput.printLines(entries, context)
        }
        if entries.isEmpty {
            throw KeychainError(.itemNotFound, "nothing matches \(InertText.quoted(query))")
        }
        return .success
    }
}
