import KeyshelfAgent
import KeyshelfCredentials
import KeyshelfCrypto
import KeyshelfVault

/// `keyshelf add SERVER ACCOUNT [--generate | --password-stdin] [--local] [--yes]`.
struct AddCommand: Command {
    static let spec = CommandSpec(
        name: "add", summary: "save a password (shared credentials unless --local)",
        positionals: [
            .init(name: "SERVER", help: "host name, host:port or URL"),
            .init(name: "ACCOUNT", help: "the user name"),
        ],
        options: [
            .flag("--generate", "-g", help: "generate the password (honouring the domain's saved passwordrules) and print it"),
            .flag("--password-stdin", help: "read the password from the first line of standard input"),
        ] + AppleAccountAdd.options,
        shared: [.localOnly, .yes, .vault, .passwordFD],
        discussion: """
            Without --generate or --password-stdin the password is asked on the terminal.
            Replacing a saved password asks for consent (Update Saved Password?).
            """)

    var server: String
    var account: String
    var generate: Bool
    var passwordFromStdin: Bool
    var options: SharedOptions
    /// `--sign-in-with-apple` and its options; nil for a password account.
    var apple: AppleAccountAdd?

    init(_ arguments: ParsedArguments) throws(UsageError) {
        server = arguments.positionals[0]
        account = arguments.positionals[1]
        generate = arguments.has("--generate")
        passwordFromStdin = arguments.has("--password-stdin")
        options = try SharedOptions(arguments)
        apple = try AppleAccountAdd.parse(arguments)
        if apple == nil, arguments.value("--label") != nil {
            throw UsageError("--label is only taken with --sign-in-with-apple for now")
        }
        if generate && passwordFromStdin {
            throw UsageError("--generate and --password-stdin exclude each other")
        }
    }

    func run(_ context: CommandContext) throws -> ExitCode {
        let serverName = try ServerArgument.parse(server)
        let account = try ServerArgument.account(account)
        // The master password comes first: with --password-fd 0 it is the
        // first line of standard input and the item password the second.
        let opener = try VaultAccess.prepare(options, context, readsMoreInput: apple == nil)
        let store: Store = options.scope == .local ? .local : .shared
        if let apple { return try apple.run(server: serverName, account: account, store: store, opener: opener, yes: options.yes, context) }
        let password: Secret
        let outcome: AddOutcome
        if generate {
            // The domain's saved passwordrules are in the vault: open it (with the
            // agent's keys when it is unlocked) and run the facade here.
            let session = try opener.open()
            defer { session.lock() }
            let shelf = try VaultAccess.shelf(session, yes: options.yes, context)
            password = try shelf.generatePassword(for: serverName)
            outcome = try shelf.add(server: serverName, account: account, password: password, to: store)
        } else {
            password = try itemPassword(context)
            outcome = try opener.answer(
                .add(server: serverName, account: account, password: password, store: store), yes: options.yes, value: \.addOutcome
            ) { try $0.add(server: serverName, account: account, password: password, to: store) }
        }
        if generate { RecordOutput.printPassword(password, context) }
        let what = "the password for \(InertText.quoted(account)) on \(serverName.display)"
        switch outcome {
        case .added: context.note("saved \(what) in \(RecordOutput.name(of: store))")
        case .updated: context.note("updated \(what) in \(RecordOutput.name(of: store))")
        case .unchanged: context.note("\(what) was already saved in \(RecordOutput.name(of: store))")
        case .deleted: context.note("deleted \(what)")
        }
        return .success
    }

    /// The new item password: the first line of standard input, or typed twice on the terminal.
    private func itemPassword(_ context: CommandContext) throws -> Secret {
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
        return try PasswordInput.read(from: .terminal, terminal: context.terminal, prompt: "Password for \(InertText.make(account)): ",
                                      confirmPrompt: "Repeat the password: ", allowEmpty: false)
    }
}
