import KeyshelfCredentials
import KeyshelfVault

/// `keyshelf rm SERVER ACCOUNT [--local | --shared] [--yes]`: a
/// consent-gated delete (Delete Saved Password?).
struct RmCommand: Command {
    static let spec = CommandSpec(
        name: "rm", summary: "delete a saved password (asks for consent)",
        positionals: [
            .init(name: "SERVER", help: "host name, host:port or URL; without a scheme, the protocol the account is saved for"),
            .init(name: "ACCOUNT", help: "the user name"),
        ],
        shared: [.scope, .yes, .vault, .passwordFD])

    var server: String
    var account: String
    var options: SharedOptions

    init(_ arguments: ParsedArguments) throws(UsageError) {
        server = arguments.positionals[0]
        account = arguments.positionals[1]
        options = try SharedOptions(arguments)
    }

    func run(_ context: CommandContext) throws -> ExitCode {
        let pattern = try ServerArgument.pattern(server)
        let account = try ServerArgument.account(account)
        let session = try VaultAccess.unlock(options, context)
        defer { session.lock() }
        let shelf = try VaultAccess.shelf(session, yes: options.yes, context)
        guard let serverName = try shelf.server(matching: pattern, account: account, in: options.scope) else {
            throw KeychainError(.itemNotFound, "no saved password for \(InertText.quoted(account)) on \(pattern.display)")
        }
        let stores = try shelf.delete(server: serverName, account: account, in: options.scope)
        context.note("deleted the password for \(InertText.quoted(account)) on \(serverName.qualified) \(Self.from(stores))")
        return .success
    }

    /// "from the local store", "from the shared credentials" or "from both stores".
    static func from(_ stores: [Store]) -> String {
        switch (stores.contains(.local), stores.contains(.shared)) {
        case (true, true): "from both stores"
        case (true, false): "from the local store"
        default: "from the shared credentials"
        }
    }
}
