import Foundation
import KeyshelfAgent
import KeyshelfCredentials
import KeyshelfCrypto
import KeyshelfVault

/// `keyshelf get SERVER [ACCOUNT] [--local | --shared] [--json | --clip | --history] [--yes] [--client APPID]`:
/// prints the password on standard output, or with `--clip` copies it to the
/// clipboard (cleared after the delay, as the TUI's `c`; docs/cli.md).
/// `--service NAME [ACCOUNT]` gets a generic password instead
/// (`GetCommand+Service.swift`); `--client` releases only domains that
/// client is associated with (`GetCommand+Client.swift`, docs/associated-domains.md).
struct GetCommand: Command {
    static let spec = CommandSpec(
        name: "get", summary: "print a saved password (local store first, then shared credentials)",
        positionals: [
            .init(name: "SERVER", optional: true, help: "host name, host:port or URL; without a scheme every protocol matches (with --service: the ACCOUNT; optional with --client: every associated domain)"),
            .init(name: "ACCOUNT", optional: true, help: "the user name; needed when the server has several"),
        ],
        options: [ServerArgument.serviceOption,
                  .flag("--clip", "-c", help: "copy the password to the clipboard instead of printing it; cleared after 45 s ($KEYSHELF_CLIPBOARD_CLEAR)"),
                  .flag("--history", help: "also print the earlier passwords, one per line: REPLACED<TAB>PASSWORD, newest first"),
                  .value("--client", valueName: "APPID", help: "release only what this associated client may have (keyshelf associate)")],
        shared: [.scope, .json, .yes, .vault, .passwordFD],
        usages: ServerArgument.usages(accountRequired: false) + ["--client APPID [SERVER [ACCOUNT]] [options]"],
        discussion: """
            A shared credential is released only with consent (Use Saved Password for DOMAIN?);
            without a terminal that needs --yes.
            --clip uses the X or Wayland clipboard (DISPLAY and xclip, WAYLAND_DISPLAY and wl-copy) and,
            inside tmux, tmux's paste buffer; a clearer left running in the background clears it later
            where it still holds the password, never a value copied after it.
            """)

    /// What to get; nil only with `--client` and no SERVER (every associated domain).
    var target: ServerArgument.Target?
    var options: SharedOptions
    var clip: Bool
    var history: Bool
    var client: AppIdentifier?

    init(_ arguments: ParsedArguments) throws(UsageError) {
        client = try arguments.value("--client").map(AssociationArguments.app)
        let everyDomain = client != nil && arguments.positionals.isEmpty && arguments.value("--service") == nil
        target = everyDomain ? nil : try ServerArgument.target(arguments, accountRequired: false)
        options = try SharedOptions(arguments)
        clip = arguments.has("--clip")
        history = arguments.has("--history")
        if history && (clip || options.json) { throw UsageError("--history prints lines; it excludes --clip and --json") }
        if clip && options.json { throw UsageError("--clip and --json exclude each other") }
        if client != nil, case .service? = target { throw UsageError("--client releases shared web credentials, not generic passwords (--service)") }
    }

    /// The SERVER and ACCOUNT arguments; nil for a generic password or every associated domain.
    var serverArguments: (server: String, account: String?)? {
        if case .server(let server, let account)? = target { return (server, account) }
        return nil
    }

    func run(_ context: CommandContext) throws -> ExitCode {
        if let client { return try run(for: client, context) }
        if case .service(let service, let account)? = target { return try runService(service, account: account, context) }
        guard let (server, account) = serverArguments else { return .usage }
        let serverName = try ServerArgument.pattern(server)
        if let account { _ = try ServerArgument.account(account) }
        if history {
            try HistoryOutput.run(server: serverName, account: account, options: options, context)
            return .success
        }
        let opener = try VaultAccess.opener(options, context)
        let record: CredentialRecord
        if options.json {
            // The agent's records carry no label, notes or dates: open the vault (with its keys when unlocked).
            let session = try opener.session()
            defer { session.lock() }
            record = try VaultAccess.shelf(session, yes: options.yes, context).get(server: serverName, account: account, in: options.scope)
        } else {
            record = try opener.answer(.get(server: serverName, account: account, filter: options.scope), yes: options.yes, value: \.record)
        }
        guard let password = record.password else {
            throw CLIError(.failure, "the password for \(InertText.quoted(record.account)) on \(record.server.qualified) could not be read")
        }
        try output(password, of: record, context)
        return .success
    }

    /// Copies `password` (`--clip`), or prints `record` as JSON (`--json`) or the password alone.
    /// - Throws: `CLIError` when no clipboard took it or the password is not JSON text.
    func output(_ password: Secret, of record: CredentialRecord, _ context: CommandContext) throws {
        if clip {
            try ClipboardOutput.copy(password, what: "the password of \(InertText.quoted(record.account)) on \(record.server.qualified)", context)
        } else if options.json {
            try RecordOutput.printJSON(record, context)
        } else {
            RecordOutput.printPassword(password, context)
        }
    }
}
