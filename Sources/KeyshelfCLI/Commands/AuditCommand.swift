import KeyshelfCredentials
import KeyshelfVault

/// `keyshelf audit [--json] [--hibp FILE] [--online]`: weak, reused,
/// compromised and http-only accounts (docs/audit.md), never a password;
/// `keyshelf audit ignore|unignore PROBLEM SERVER ACCOUNT` keeps a finding
/// quiet for one item. Exits 0 when nothing is found, 8 otherwise.
struct AuditCommand: Command {
    static let spec = CommandSpec(
        name: "audit", summary: "report weak, reused, compromised and http-only passwords",
        positionals: [
            .init(name: "ignore|unignore", optional: true, help: "hide (or show again) one finding of one account"),
            .init(name: "PROBLEM", optional: true, help: "weak, reused, compromised or insecure",
                  completion: .words("weak", "reused", "compromised", "insecure")),
            .init(name: "SERVER", optional: true, help: "host name, host:port or URL"),
            .init(name: "ACCOUNT", optional: true, help: "the user name"),
        ],
        options: [
            .value("--hibp", valueName: "FILE", help: "look passwords up in this Have I Been Pwned SHA-1 list (HASH:COUNT lines sorted by hash, plain text)"),
            .flag("--online", help: "look passwords up with the Have I Been Pwned range API (sends 5 hex digits of each SHA-1, nothing else)"),
            .value("--cainfo", valueName: "PEM", help: "with --online: trust the certificates in PEM instead of the system's (for tests)"),
            .flag("--json", help: "print a JSON array, one object per account with findings: server, account, store, problems"),
        ],
        shared: [.scope, .vault, .passwordFD],
        discussion: """
            Problems: weak (zxcvbn estimate under 50 bits, with the account, the domain's labels and the item's
            label as known words), reused (the same password on another account), compromised (in the --hibp
            list or, with --online, the range API), insecure (an http-only server). Ignored findings are not
            reported; their count goes to standard error.

            exit status: 0 nothing found · 8 at least one finding · others as for every command
            """)

    enum Action { case report, ignore, unignore }

    var action = Action.report
    var target: (problem: AuditProblem, server: String, account: String)?
    var hibp: String?
    var online: Bool
    var cainfo: String?
    var options: SharedOptions

    init(_ arguments: ParsedArguments) throws(UsageError) {
        options = try SharedOptions(arguments)
        hibp = arguments.value("--hibp")
        online = arguments.has("--online")
        cainfo = arguments.value("--cainfo")
        let words = arguments.positionals
        if let word = words.first {
            switch word {
            case "ignore": action = .ignore
            case "unignore": action = .unignore
            default: throw UsageError("unknown audit action '\(word)'; use ignore or unignore")
            }
            guard words.count == 4 else { throw UsageError("\(word) needs PROBLEM SERVER ACCOUNT") }
            guard let problem = AuditProblem(rawValue: words[1]) else {
                throw UsageError("unknown problem '\(words[1])'; use weak, reused, compromised or insecure")
            }
            target = (problem, words[2], words[3])
            if hibp != nil || online || options.json { throw UsageError("\(word) takes no --hibp, --online or --json") }
        }
        if hibp != nil && online { throw UsageError("--hibp and --online exclude each other") }
        if cainfo != nil && !online { throw UsageError("--cainfo goes with --online") }
    }

    func run(_ context: CommandContext) throws -> ExitCode {
        if let target { return try setIgnored(target, context) }
        let pwned = try source(context)
        let session = try VaultAccess.opener(options, context).session()
        defer { session.lock() }
        let shelf = try VaultAccess.shelf(session, yes: false, context)
        let report: AuditReport
        do {
            report = try shelf.audit(with: AuditEngine(pwned: pwned))
        } catch let error as AuditError {
            throw Self.cliError(error)
        }
        let findings = report.findings.filter { options.scope.contains($0.entry.store) }
        if options.json {
            AuditOutput.printJSON(findings, context)
        } else {
            AuditOutput.printLines(findings, context)
        }
        context.note(AuditOutput.summary(report, shown: findings))
        return findings.isEmpty ? .success : .findings
    }

    /// The Have I Been Pwned source the options ask for, if any.
    private func source(_ context: CommandContext) throws -> (any PwnedPasswordsSource)? {
        do {
            if let hibp { return try PwnedPasswordsFile(path: hibp) }
            if online {
                return PwnedRangeClient(baseURL: context.environment[PwnedRangeClient.baseURLVariable] ?? PwnedRangeClient.defaultBaseURL,
                                        caInfo: cainfo)
            }
            return nil
        } catch let error as AuditError {
            throw Self.cliError(error)
        }
    }

    private func setIgnored(_ target: (problem: AuditProblem, server: String, account: String), _ context: CommandContext) throws -> ExitCode {
        let serverName = try ServerArgument.parse(target.server)
        let account = try ServerArgument.account(target.account)
        let session = try VaultAccess.opener(options, context).session()
        defer { session.lock() }
        let shelf = try VaultAccess.shelf(session, yes: false, context)
        let entries = shelf.accounts(of: serverName, in: options.scope).filter { $0.account == account }
        guard !entries.isEmpty else {
            throw KeychainError(.itemNotFound, "no saved password for \(InertText.quoted(account)) on \(serverName.qualified)")
        }
        for entry in entries { try shelf.setIgnored(target.problem, action == .ignore, for: entry) }
        let verb = action == .ignore ? "ignoring" : "reporting again"
        context.note("\(verb) \(target.problem.rawValue) for \(InertText.quoted(account)) on \(serverName.qualified)")
        return .success
    }

    /// A refused list is bad input (exit 2); a network failure is exit 1.
    private static func cliError(_ error: AuditError) -> CLIError {
        CLIError(error.code == .network ? .failure : .usage, error.reason)
    }
}
