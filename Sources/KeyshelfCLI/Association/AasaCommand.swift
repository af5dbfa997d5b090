import Foundation
import KeyshelfCredentials

/// `keyshelf aasa check DOMAIN[:PORT] [--app APPID] [--cainfo PEM | --pin …] [--json]`:
/// grades a site's apple-app-site-association file step by step (`AASACheck`).
/// Needs no vault.
struct AasaCommand: Command {
    static let spec = CommandSpec(
        name: "aasa", summary: "check a site's apple-app-site-association file (no vault needed)",
        positionals: [
            .init(name: "OPERATION", help: "check"),
            .init(name: "DOMAIN", help: "host name or host:port"),
        ],
        options: [
            .value("--app", valueName: "APPID", help: "the app identifier that must be listed in webcredentials.apps"),
            .flag("--json", help: "print one JSON object: domain, app, associates, checks [{check, grade, detail}]"),
        ] + AssociationArguments.trustOptions,
        discussion: """
            Prints one 'GRADE<TAB>CHECK<TAB>DETAIL' line per check (pass, warn or fail): the path that
            answered, status, redirects, content type, size, signature (signed CMS or plain),
            byte-order mark, JSON validity, the webcredentials.apps entries, and the app.
            The same rules as 'keyshelf associate': exit 0 only when it would associate --app
            (without --app: when a usable file was found), 1 otherwise.
            """)

    var domain: AssociatedDomain
    var app: AppIdentifier?
    var trust: AssociationTrust
    var timeout: Int
    var json: Bool

    init(_ arguments: ParsedArguments) throws(UsageError) {
        guard arguments.positionals[0] == "check" else {
            throw UsageError("unknown operation '\(arguments.positionals[0])'; use check", command: Self.spec.name)
        }
        domain = try AssociationArguments.domain(arguments.positionals[1])
        app = try arguments.value("--app").map(AssociationArguments.app)
        trust = try AssociationArguments.trust(arguments)
        timeout = try AssociationArguments.timeout(arguments)
        json = arguments.has("--json")
    }

    func run(_ context: CommandContext) throws -> ExitCode {
        let report = AASACheck(domain: domain, app: app, trust: trust, timeoutSeconds: timeout)
        if json {
            // No secret in this output, so Foundation's serializer does (it nests the checks).
            var object: [String: Any] = ["domain": domain.key, "associates": report.associates,
                                         "checks": report.steps.map { ["check": $0.name, "grade": $0.grade.rawValue, "detail": $0.detail] }]
            if let app { object["app"] = app.value }
            let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
            context.standardOutput.write(String(decoding: data, as: UTF8.self) + "\n")
        } else {
            for step in report.steps {
                context.standardOutput.write("\(step.grade.rawValue)\t\(step.name)\t\(InertText.make(step.detail))\n")
            }
        }
        return report.associates ? .success : .failure
    }
}
