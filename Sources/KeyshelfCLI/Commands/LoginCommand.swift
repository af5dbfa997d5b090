import KeyshelfCredentials
import KeyshelfVault

/// `keyshelf login SERVER [ACCOUNT] [--check CMD | --check-url URL [--cainfo|--pin] [--form U,P]] [--json] [--yes]`:
/// the login flow of DESIGN §4 (`--check-url`: `URLCheck`, docs/associated-domains.md).
/// `LoginFlow` runs here (prompt, check); its vault steps are operations
/// (`AnsweredLoginSteps`), answered by the unlocked agent when there is one.
struct LoginCommand: Command {
    static let spec = CommandSpec(
        name: "login", summary: "run the login flow: local store, shared credentials, prompt, check, save",
        positionals: [
            .init(name: "SERVER", help: "host name, host:port or URL"),
            .init(name: "ACCOUNT", optional: true, help: "the user name, if known"),
        ],
        options: [
            .value("--check", valueName: "CMD",
                   help: "shell command that gets 'account\\npassword\\n' on stdin; exit 0 accepts"),
            .value("--check-url", valueName: "URL", help: "try the credential on this https URL of the site: 2xx accepts, 401/403 refuses"),
            .value("--form", valueName: "USERFIELD,PASSFIELD", help: "with --check-url: POST these form fields instead of HTTP Basic"),
        ] + AssociationArguments.trustOptions,
        shared: [.json, .yes, .vault, .passwordFD],
        discussion: """
            Prints the accepted password on standard output (the account is named on standard error; --json for all fields)
            and saves it to both stores.
            """)

    var server: String
    var account: String?
    var check: String?
    var urlCheck: URLCheck?
    var options: SharedOptions

    init(_ arguments: ParsedArguments) throws(UsageError) {
        server = arguments.positionals[0]
        account = arguments.positionals.count > 1 ? arguments.positionals[1] : nil
        check = arguments.value("--check")
        options = try SharedOptions(arguments)
        urlCheck = try LoginCommand.urlCheck(arguments)
        if check != nil && urlCheck != nil { throw UsageError("--check and --check-url exclude each other") }
    }

    /// `--check-url` with its trust and `--form` options.
    static func urlCheck(_ arguments: ParsedArguments) throws(UsageError) -> URLCheck? {
        guard let url = arguments.value("--check-url") else {
            if ["--form", "--cainfo", "--pin", "--timeout"].contains(where: { arguments.value($0) != nil }) {
                throw UsageError("--form, --cainfo, --pin and --timeout need --check-url")
            }
            return nil
        }
        var form: (user: String, password: String)?
        if let text = arguments.value("--form") {
            let fields = text.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            guard fields.count == 2, !fields[0].isEmpty, !fields[1].isEmpty else {
                throw UsageError("--form expects USERFIELD,PASSFIELD, not '\(text)'")
            }
            form = (fields[0], fields[1])
        }
        return URLCheck(url: url, trust: try AssociationArguments.trust(arguments), form: form,
                        timeoutSeconds: try AssociationArguments.timeout(arguments))
    }

    func run(_ context: CommandContext) throws -> ExitCode {
        let pattern = try ServerArgument.pattern(server)
        if let account { _ = try ServerArgument.account(account) }
        do { try urlCheck?.validate(for: pattern.newServer) } catch { throw UsageError(error.reason) }
        let opener = try VaultAccess.opener(options, context)
        let prompt: any LoginPrompt = context.terminal().map { TerminalLoginPrompt(terminal: $0) } ?? NoLoginPrompt()
        let steps = AnsweredLoginSteps(opener: opener, yes: options.yes)
        // The vault's steps go to the unlocked agent (or the vault opened here); the prompt and the check run here.
        let (serverName, result) = try opener.keepingSession {
            let serverName = try steps.resolve(pattern, account: account)
            let check = urlCheck.map { $0 as any CredentialCheck } ?? check.map { CommandCheck(command: $0) }
            return (serverName, try LoginFlow(prompt: prompt, check: check).run(steps, server: serverName, account: account))
        }
        if options.json {
            try RecordOutput.printJSON(result.record, context)
        } else if let password = result.record.password {
            RecordOutput.printPassword(password, context)
        } else if result.record.signInWith != .apple {
            throw CLIError(.failure, "the login flow returned no password")
        }
        if result.record.signInWith == .apple {
            context.note("\(InertText.quoted(result.record.account)) on \(serverName.qualified) signs in with Apple: no password ("
                         + Keyshelf.appleManagementHint + ")")
        }
        let source = switch result.source {
        case .local: "the local store"
        case .shared: "the shared credentials"
        case .prompt: "the prompt"
        }
        context.note("using \(InertText.quoted(result.record.account)) on \(serverName.qualified) from \(source)")
        if let saved = result.saved, saved.declined {
            context.note("the saved password was not replaced everywhere: the update was declined")
        }
        return .success
    }
}
