import Foundation
import KeyshelfAgent
import KeyshelfClipboard
import KeyshelfCredentials
import KeyshelfCrypto
import KeyshelfVault

/// `keyshelf get SERVER [ACCOUNT] [--local | --shared] [--json | --clip] [--yes]`:
/// prints the password on standard output, or with `--clip` copies it to the
/// clipboard (cleared after the delay, as the TUI's `c`; docs/cli.md).
struct GetCommand: Command {
    static let spec = CommandSpec(
        name: "get", summary: "print a saved password (local store first, then shared credentials)",
        positionals: [
            .init(name: "SERVER", optional: true, help: "host name, host:port or URL; without a scheme every protocol matches (with --service: the ACCOUNT)"),
            .init(name: "ACCOUNT", optional: true, help: "the user name; needed when the server has several"),
        ],
        options: [ServerArgument.serviceOption, .flag("--clip", "-c", help: "copy the password to the clipboard instead of printing it; cleared after 45 s ($KEYSHELF_CLIPBOARD_CLEAR)")],
        shared: [.scope, .json, .yes, .vault, .passwordFD],
        discussion: """
            A shared credential is released only with consent (Use Saved Password for DOMAIN?);
            without a terminal that needs --yes.
            --clip uses the X or Wayland clipboard (DISPLAY and xclip, WAYLAND_DISPLAY and wl-copy) and,
            inside tmux, tmux's paste buffer; a clearer left running in the background clears it later
            where it still holds the password, never a value copied after it.
            """)

    var target: ServerArgument.Target
    var options: SharedOptions
    var clip: Bool

    init(_ arguments: ParsedArguments) throws(UsageError) {
        target = try ServerArgument.target(arguments, accountRequired: false)
        options = try SharedOptions(arguments)
        clip = arguments.has("--clip")
        if clip && options.json { throw UsageError("--clip and --json exclude each other") }
    }

    func run(_ context: CommandContext) throws -> ExitCode {
        if case .service(let service, let account) = target { return try runService(service, account: account, context) }
        guard case .server(let server, let account) = target else { return .usage }
        let serverName = try ServerArgument.pattern(server)
        if let account { _ = try ServerArgument.account(account) }
        let opener = try VaultAccess.prepare(options, context)
        let record: CredentialRecord
        if options.json {
            // The agent's records carry no label, notes or dates: open the vault (with its keys when unlocked).
            let session = try opener.open()
            defer { session.lock() }
            record = try VaultAccess.shelf(session, yes: options.yes, context).get(server: serverName, account: account, in: options.scope)
        } else {
            record = try opener.answer(.get(server: serverName, account: account, filter: options.scope), yes: options.yes, value: \.record) {
                try $0.get(server: serverName, account: account, in: options.scope)
            }
        }
        guard let password = record.password else {
            throw CLIError(.failure, "the password for \(InertText.quoted(record.account)) on \(record.server.qualified) could not be read")
        }
        if clip {
            try copy(password, of: record, context)
        } else if options.json {
            try RecordOutput.printJSON(record, context)
        } else {
            RecordOutput.printPassword(password, context)
        }
        return .success
    }

    /// `--clip`: copies and leaves the detached clearer behind; the note says where the password went.
    /// - Throws: `CLIError` (exit 1) when no clipboard took it.
    func copy(_ password: Secret, of record: CredentialRecord, _ context: CommandContext) throws(CLIError) {
        try copy(password, what: "the password of \(InertText.quoted(record.account)) on \(record.server.qualified)", context)
    }

    /// `--clip` for `what` (named in the note).
    func copy(_ password: Secret, what: String, _ context: CommandContext) throws(CLIError) {
        let terminal = context.terminal()
        let clipboard = Clipboard(
            clearAfter: Clipboard.clearSeconds(environment: context.environment), environment: context.environment,
            clearerExecutable: OwnExecutable.path,
            writeTerminal: terminal.map { terminal in { bytes in bytes.withUnsafeBytes { _ = write(terminal.fd, $0.baseAddress, $0.count) } } })
        let report = clipboard.copy(password, now: Date())
        let message = report.message(what)
        guard report.copied || report.sentToTerminal else { throw CLIError(.failure, message) }
        context.note(message)
    }
}
