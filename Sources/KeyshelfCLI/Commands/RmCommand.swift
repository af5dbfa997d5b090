import KeyshelfCredentials
import KeyshelfVault

/// `keyshelf rm SERVER ACCOUNT [--local | --shared] [--yes]`: a
/// consent-gated delete (Delete Saved Password?).
struct RmCommand: Command {
    static let spec = CommandSpec(
        name: "rm", summary: "delete a saved password (asks for consent)",
        positionals: [
            .init(name: "SERVER", help: "host name, host:port or URL; without a scheme, the protocol the account is saved for (with --service: the ACCOUNT)"),
            .init(name: "ACCOUNT", optional: true, help: "the user name"),
        ],
        options: [ServerArgument.serviceOption],
        shared: [.scope, .yes, .vault, .passwordFD],
        usages: ServerArgument.usages(accountRequired: true))

    var target: ServerArgument.Target
    var options: SharedOptions

    init(_ arguments: ParsedArguments) throws(UsageError) {
        target = try ServerArgument.target(arguments, accountRequired: true)
        options = try SharedOptions(arguments)
    }

    func run(_ context: CommandContext) throws -> ExitCode {
        let (server, typed): (String?, String) = switch target {
        case .server(let server, let account): (server, account ?? "")
        case .service(_, let account): (nil, account ?? "")
        }
        let pattern = try server.map(ServerArgument.pattern)
        let given = try ServerArgument.account(typed)
        let opener = try VaultAccess.opener(options, context)
        guard let pattern else {
            guard case .service(let service, _) = target else { return .usage }
            let store = try opener.answer(.deleteGeneric(service: service, account: given), yes: options.yes, value: \.genericDeletion)
            context.note("deleted the password for \(InertText.quoted(given)) of service \(InertText.quoted(service)) \(Self.from([store]))")
            return .success
        }
        let operation = ShelfOperation.delete(server: pattern, account: given, filter: options.scope)
        let (serverName, stores) = try opener.answer(operation, yes: options.yes, value: \.deletion)
        context.note("deleted the password for \(InertText.quoted(given)) on \(serverName.qualified) \(Self.from(stores))")
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
