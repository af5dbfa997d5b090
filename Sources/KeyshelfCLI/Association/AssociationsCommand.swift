import Foundation
import KeyshelfCredentials

/// `keyshelf associations [APPID] [--json] [--retry]`: lists the
/// associations with their state; `--retry` first checks again the pending
/// ones whose 3 hours have passed.
struct AssociationsCommand: Command {
    static let spec = CommandSpec(
        name: "associations", summary: "list which clients may use which domains' shared credentials",
        positionals: [.init(name: "APPID", optional: true, help: "only this client")],
        options: [
            .flag("--json", help: "print a JSON array of objects: app, domain, state, detail, trust"),
            .flag("--retry", help: "first check again the pending associations that are due (network)"),
        ],
        shared: [.vault, .passwordFD],
        discussion: """
            Lines are 'APPID<TAB>DOMAIN<TAB>STATE<TAB>DETAIL'. STATE is verified (the site lists the app),
            declared (a client name the user associated), pending (the site answered 500-599; retried)
            or failed (nothing is released). Only verified and declared associations release credentials.
            Nothing touches the network without --retry.
            """)

    var app: AppIdentifier?
    var json: Bool
    var retry: Bool
    var options: SharedOptions

    init(_ arguments: ParsedArguments) throws(UsageError) {
        app = try arguments.positionals.first.map(AssociationArguments.app)
        json = arguments.has("--json")
        retry = arguments.has("--retry")
        options = try SharedOptions(arguments)
    }

    func run(_ context: CommandContext) throws -> ExitCode {
        let session = try VaultAccess.opener(options, context).session()
        defer { session.lock() }
        let shelf = try VaultAccess.shelf(session, yes: false, context)
        if retry {
            for checked in try shelf.retryDue(site: SiteVerifier()) where app == nil || checked.app == app {
                context.note("checked \(checked.app.value) → \(checked.domain.key) again: \(checked.stateName)")
            }
        }
        let associations = shelf.associations(of: app)
        if json {
            var writer = JSONWriter()
            writer.beginArray()
            for association in associations {
                writer.beginObject()
                writer.field("app", association.app.value)
                writer.field("domain", association.domain.key)
                writer.field("state", association.stateName)
                writer.field("detail", association.stateDetail)
                writer.field("trust", association.trust.summary)
                writer.endObject()
            }
            writer.endArray()
            context.standardOutput.write(String(decoding: writer.bytes, as: UTF8.self) + "\n")
        } else {
            for association in associations {
                let fields = [association.app.value, association.domain.key, association.stateName, InertText.make(association.stateDetail)]
                context.standardOutput.write(fields.joined(separator: "\t") + "\n")
            }
        }
        return .success
    }
}
