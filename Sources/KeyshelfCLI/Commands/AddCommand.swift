import KeyshelfAgent
import KeyshelfCredentials
import KeyshelfCrypto
import KeyshelfVault

/// `keyshelf add SERVER ACCOUNT [--generate | --password-stdin] [--local | --shared] [--yes]`:
/// a new password goes to the shared credentials (`--local`: the local
/// store); a changed one to every store holding the account (issue 13 rule 2).
struct AddCommand: Command {
    static let spec = CommandSpec(
        name: "add", summary: "save a password (new: shared credentials unless --local; changed: every store holding it)",
        positionals: [
            .init(name: "SERVER", help: "host name, host:port or URL (with --service: the ACCOUNT)"),
            .init(name: "ACCOUNT", optional: true, help: "the user name"),
        ],
        options: [
            .flag("--generate", "-g", help: "generate the password (honouring the domain's saved passwordrules) and print it"),
            .flag("--password-stdin", help: "read the password from the first line of standard input"),
            ServerArgument.serviceOption,
            .flag("--synchronizable", help: "with --service: keep a new item in the synced shared file, not the local store"),
            .value("--label", valueName: "L", help: "a display name for the item"),
            .flag("--notes-stdin", help: "read the notes (several lines) from standard input, after the password line"),
        ] + AppleAccountAdd.options,
        shared: [.scope, .yes, .vault, .passwordFD],
        usages: ServerArgument.usages(accountRequired: true),
        discussion: """
            Without --generate or --password-stdin the password is asked on the terminal.
            Replacing a saved password asks for consent once (Update Saved Password?) and updates
            every store that holds the account; --local or --shared narrows that to one store.
            Without a scheme, SERVER is the protocol the account is saved for, else https.
            """)

    var target: ServerArgument.Target
    var label: String?
    var notesFromStdin: Bool
    var synchronizable: Bool
    var generate: Bool
    var passwordFromStdin: Bool
    var options: SharedOptions
    /// `--sign-in-with-apple` and its options; nil for a password account.
    var apple: AppleAccountAdd?

    init(_ arguments: ParsedArguments) throws(UsageError) {
        target = try ServerArgument.target(arguments, accountRequired: true)
        label = arguments.value("--label")
        notesFromStdin = arguments.has("--notes-stdin")
        synchronizable = arguments.has("--synchronizable")
        generate = arguments.has("--generate")
        passwordFromStdin = arguments.has("--password-stdin")
        options = try SharedOptions(arguments)
        apple = try AppleAccountAdd.parse(arguments)
        if apple != nil, case .service = target { throw UsageError("--sign-in-with-apple is for a web login, not a generic password (--service)") }
        if apple != nil && notesFromStdin { throw UsageError("--sign-in-with-apple reads nothing from standard input: --notes-stdin does not apply") }
        if generate && passwordFromStdin {
            throw UsageError("--generate and --password-stdin exclude each other")
        }
        if synchronizable, case .server = target { throw UsageError("--synchronizable goes with --service (a web login's store is --local or --shared)") }
        if notesFromStdin && !passwordFromStdin && !generate {
            throw UsageError("--notes-stdin needs --password-stdin or --generate (standard input holds the notes)")
        }
    }

    func run(_ context: CommandContext) throws -> ExitCode {
        if case .service(let service, let account) = target {
            return try runService(service, account: try ServerArgument.account(account ?? ""), context)
        }
        guard case .server(let server, let given?) = target else { throw UsageError("missing ACCOUNT") }
        let pattern = try ServerArgument.pattern(server)
        let account = try ServerArgument.account(given)
        // The master password comes first: with --password-fd 0 it is the
        // first line of standard input and the item password the second.
        let opener = try VaultAccess.opener(options, context, readsMoreInput: apple == nil)
        let newItems: Store = options.scope == .local ? .local : .shared
        if let apple { return try apple.run(server: pattern.newServer, account: account, store: newItems, opener: opener, yes: options.yes, context) }
        let password: Secret
        let report: PasswordChangeReport
        if generate || label != nil || notesFromStdin {
            // The domain's saved passwordrules are in the vault, and the agent's
            // change carries no metadata: open the vault (with the agent's keys
            // when it is unlocked) and run the facade here.
            let session = try opener.session()
            defer { session.lock() }
            let shelf = try VaultAccess.shelf(session, yes: options.yes, context)
            password = generate
                ? try shelf.generatePassword(for: try shelf.server(matching: pattern, account: account, in: options.scope) ?? pattern.newServer)
                : try itemPassword(context)
            let notes = notesFromStdin ? try Self.readNotes() : nil
            report = try shelf.changePassword(password, server: pattern, account: account, in: options.scope, newItems: newItems,
                                              label: label, comment: notes)
        } else {
            password = try itemPassword(context)
            report = try opener.answer(
                .change(server: pattern, account: account, password: password, filter: options.scope, newItems: newItems),
                yes: options.yes, value: \.changeReport)
        }
        if generate { RecordOutput.printPassword(password, context) }
        context.note(Self.describe(report, account: account))
        return .success
    }

    /// The report line: which stores were written, and how (issue 13 rule 2).
    static func describe(_ report: PasswordChangeReport, account: String) -> String {
        let what = "the password for \(InertText.quoted(account)) on \(report.server.qualified)"
        func stores(_ outcome: AddOutcome) -> String? {
            let list = report.stores.filter { report[$0] == outcome }
            switch list.count {
            case 0: return nil
            case 1: return RecordOutput.name(of: list[0])
            default: return "both stores"
            }
        }
        var parts: [String] = []
        if let added = stores(.added) { parts.append("saved \(what) in \(added)") }
        if let updated = stores(.updated) { parts.append("\(parts.isEmpty ? "updated \(what)" : "updated it") in \(updated)") }
        if let unchanged = stores(.unchanged) {
            parts.append(parts.isEmpty ? "\(what) was already saved in \(unchanged)" : "it was already saved in \(unchanged)")
        }
        return parts.joined(separator: "; ")
    }

    /// The new item password: the first line of standard input, or typed twice on the terminal.
    func itemPassword(_ context: CommandContext) throws -> Secret {
        if passwordFromStdin {
            guard let password = try LineReader.readLine(fd: 0, source: "standard input") else {
                throw CLIError(.usage, "--password-stdin: standard input is empty or closed; nothing was saved")
            }
            guard password.byteCount > 0 else {
                throw CLIError(.usage, "--password-stdin: the password is empty; nothing was saved")
            }
            return password
        }
        guard context.terminal() != nil else {
            throw CLIError(.usage, "no password given and no terminal to ask: use --generate or --password-stdin")
        }
        let account: String = switch target {
        case .server(_, let account), .service(_, let account): account ?? ""
        }
        return try PasswordInput.read(from: .terminal, terminal: context.terminal, prompt: "Password for \(InertText.make(account)): ",
                                      confirmPrompt: "Repeat the password: ", allowEmpty: false)
    }
}
