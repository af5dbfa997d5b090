import KeyshelfCredentials

/// `keyshelf dissociate APPID DOMAIN`: removes an association; the client
/// gets that domain's credentials no more.
struct DissociateCommand: Command {
    static let spec = CommandSpec(
        name: "dissociate", summary: "stop a client from using a domain's shared credentials",
        positionals: [
            .init(name: "APPID", help: "TEAMID.bundle.id or client name"),
            .init(name: "DOMAIN", help: "host name or host:port"),
        ],
        shared: [.vault, .passwordFD],
        discussion: "Exit 3 when APPID is not associated with DOMAIN. The removal syncs with the shared credentials.")

    var app: AppIdentifier
    var domain: AssociatedDomain
    var options: SharedOptions

    init(_ arguments: ParsedArguments) throws(UsageError) {
        app = try AssociationArguments.app(arguments.positionals[0])
        domain = try AssociationArguments.domain(arguments.positionals[1])
        options = try SharedOptions(arguments)
    }

    func run(_ context: CommandContext) throws -> ExitCode {
        let session = try VaultAccess.opener(options, context).session()
        defer { session.lock() }
        try VaultAccess.shelf(session, yes: false, context).dissociate(app, domain)
        context.note("dissociated \(app.value) from \(domain.key)")
        return .success
    }
}
