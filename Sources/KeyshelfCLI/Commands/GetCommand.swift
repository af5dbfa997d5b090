import Foundation
import KeyshelfAgent
import KeyshelfCredentials
import KeyshelfCrypto
import KeyshelfVault

/// `keyshelf get SERVER [ACCOUNT] [--local | --shared] [--json | --clip] [--yes] [--client APPID]`:
/// prints the password on standard output, or with `--clip` copies it to the
/// clipboard (cleared after the delay, as the TUI's `c`; docs/cli.md).
/// `--client` releases only domains that client is associated with
/// (`GetCommand+Client.swift`, docs/associated-domains.md).
struct GetCommand: Command {
    static let spec = CommandSpec(
        name: "get", summary: "print a saved password (local store first, then shared credentials)",
        positionals: [
            .init(name: "SERVER", optional: true, help: "host name, host:port or URL (optional with --client: every associated domain)"),
            .init(name: "ACCOUNT", optional: true, help: "the user name; needed when the server has several"),
        ],
        options: [.flag("--clip", "-c", help: "copy the password to the clipboard instead of printing it; cleared after 45 s ($KEYSHELF_CLIPBOARD_CLEAR)"),
                  .flag("--history", help: "also print the earlier passwords, one per line: REPLACED<TAB>PASSWORD, newest first"),
                  .value("--client", valueName: "APPID", help: "release only what this associated client may have (keyshelf associate)")],
        shared: [.scope, .json, .yes, .vault, .passwordFD],
        discussion: """
            A shared credential is released only with consent (Use Saved Password for DOMAIN?);
            without a terminal that needs --yes.
            --clip uses the X or Wayland clipboard (DISPLAY and xclip, WAYLAND_DISPLAY and wl-copy) and,
            inside tmux, tmux's paste buffer; a clearer left running in the background clears it later
            where it still holds the password, never a value copied after it.
            With --client APPID only domains APPID is associated with are released (others are refused,
            exit 1), the consent names APPID, and without SERVER every associated domain is meant.
            """)

    var server: String?
    var account: String?
    var options: SharedOptions
    var clip: Bool
    var history: Bool
    var client: AppIdentifier?

    init(_ arguments: ParsedArguments) throws(UsageError) {
        server = arguments.positionals.first
        account = arguments.positionals.count > 1 ? arguments.positionals[1] : nil
        client = try arguments.value("--client").map(AssociationArguments.app)
        if server == nil && client == nil { throw UsageError("missing argument SERVER", command: Self.spec.name) }
        options = try SharedOptions(arguments)
        clip = arguments.has("--clip")
        history = arguments.has("--history")
        if history && (clip || options.json) { throw UsageError("--history prints lines; it excludes --clip and --json") }
        if clip && options.json { throw UsageError("--clip and --json exclude each other") }
    }

    func run(_ context: CommandContext) throws -> ExitCode {
        if let account { _ = try ServerArgument.account(account) }
        if let client { return try run(for: client, context) }
        let serverName = try ServerArgument.parse(server ?? "")
        if history {
            try HistoryOutput.run(server: serverName, account: account, options: options, context)
            return .success
        }
        let record = try VaultAccess.prepare(options, context).answer(
            .get(server: serverName, account: account, filter: options.scope), yes: options.yes, value: \.record
        ) { try $0.get(server: serverName, account: account, in: options.scope) }
        guard let password = record.password else {
            throw CLIError(.failure, "the password for \(InertText.quoted(record.account)) on \(record.server.display) could not be read")
        }
        if clip {
            try ClipboardOutput.copy(password, what: "the password of \(InertText.quoted(record.account)) on \(record.server.display)", context)
        } else if options.json {
            try RecordOutput.printJSON(record, context)
        } else {
            RecordOutput.printPassword(password, context)
        }
        return .success
    }
}
