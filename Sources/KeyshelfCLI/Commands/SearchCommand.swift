import KeyshelfAgent
import KeyshelfCredentials
import KeyshelfVault

/// `keyshelf search QUERY [--json]`: matches servers, accounts, labels and
/// notes of web logins, and services, accounts, labels and notes of generic
/// passwords (`Keyshelf.search`, `Keyshelf.searchGenerics`); never prints passwords.
struct SearchCommand: Command {
    static let spec = CommandSpec(
        name: "search", summary: "find credentials by server or service, account, label or note (no secrets)",
        positionals: [.init(name: "QUERY", help: "text to look for (case-insensitive)")],
        shared: [.jsonListing, .vault, .passwordFD])

    var query: String
    var options: SharedOptions

    init(_ arguments: ParsedArguments) throws(UsageError) {
        query = arguments.positionals[0]
        options = try SharedOptions(arguments)
    }

    func run(_ context: CommandContext) throws -> ExitCode {
        let (found, generics) = try VaultAccess.opener(options, context).answer(
            .search(query: query, filter: .both), yes: false, value: \.found)
        let records = Array(found)
        // As `list` prints them: web logins, then the generic passwords' own group.
        if options.json {
            try RecordOutput.printJSON(records, generics: generics, context)
        } else {
            RecordOutput.printLines(records, context)
            RecordOutput.printLines(generics, context)
        }
        if records.isEmpty && generics.isEmpty {
            throw KeychainError(.itemNotFound, "nothing matches \(InertText.quoted(query))")
        }
        return .success
    }
}
