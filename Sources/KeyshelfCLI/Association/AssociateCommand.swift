import KeyshelfCredentials

/// `keyshelf associate APPID DOMAIN[:PORT] [--cainfo PEM] [--pin sha256//B64]`:
/// checks the site's apple-app-site-association file and records the
/// association (docs/associated-domains.md).
struct AssociateCommand: Command {
    static let spec = CommandSpec(
        name: "associate", summary: "let a client use a domain's shared credentials, after the site agrees",
        positionals: [
            .init(name: "APPID", help: "TEAMID.bundle.id, or a client name such as git"),
            .init(name: "DOMAIN", help: "host name or host:port (the webcredentials: entry)"),
        ],
        options: AssociationArguments.trustOptions,
        shared: [.vault, .passwordFD],
        discussion: """
            For an app identifier keyshelf fetches https://DOMAIN/.well-known/apple-app-site-association,
            then /apple-app-site-association, and records the association when webcredentials.apps lists
            APPID. No redirect is followed; the file is at most 128 KB. HTTP 500-599 records it as
            pending: it is tried again when the client asks (get --client) or with
            'keyshelf associations --retry' once 3 hours have passed, at most 8 times.
            A client name (git) is no app a site can list: the association is recorded as declared,
            with no network request.
            Exit 0 verified, declared or pending; 1 when the site refuses or cannot be reached.
            """)

    var app: AppIdentifier
    var domain: AssociatedDomain
    var trust: AssociationTrust
    var timeout: Int
    var options: SharedOptions

    init(_ arguments: ParsedArguments) throws(UsageError) {
        app = try AssociationArguments.app(arguments.positionals[0])
        domain = try AssociationArguments.domain(arguments.positionals[1])
        trust = try AssociationArguments.trust(arguments)
        timeout = try AssociationArguments.timeout(arguments)
        options = try SharedOptions(arguments)
        if !app.isApp && trust != .system {
            throw UsageError("--cainfo and --pin apply to app identifiers only: no site is asked about the client name '\(app.value)'")
        }
    }

    func run(_ context: CommandContext) throws -> ExitCode {
        let session = try VaultAccess.opener(options, context).session()
        defer { session.lock() }
        let shelf = try VaultAccess.shelf(session, yes: false, context)
        let association = try shelf.associate(app, domain, trust: trust, site: SiteVerifier(timeoutSeconds: timeout))
        switch association.state {
        case .pending:
            context.note("\(domain.display) is temporarily unavailable; recorded \(app.value) → \(domain.key) as pending (\(association.stateDetail))")
        default:
            context.note("associated \(app.value) with \(domain.key): \(association.stateDetail)")
        }
        return .success
    }
}
