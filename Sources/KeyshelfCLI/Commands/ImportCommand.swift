import KeyshelfCredentials
import KeyshelfTransfer
import KeyshelfVault

/// `keyshelf import FILE|- [--format …] [--local] [--dry-run] [--yes]`: reads
/// another password manager's CSV or Bitwarden JSON export (docs/import.md, DESIGN §8–§9).
struct ImportCommand: Command {
    static let spec = CommandSpec(
        name: "import", summary: "import the export of another password manager (CSV, Bitwarden JSON, a pass store)",
        positionals: [.init(name: "FILE", help: "the export file (never modified), - for standard input, or a pass store's directory")],
        options: [
            .value("--format", valueName: "FORMAT",
                   help: "auto (default: recognised by content: Bitwarden JSON, or CSV by its header line), "
                       + "a directory holding .gpg-id as a pass store), chrome, firefox, bitwarden, keepassxc, safari, "
                       + "1password, lastpass (CSV), bitwarden-json, kdbx (KeePassXC, KDBX 3.1 and 4) or pass (a pass/gopass store, decrypted with your gpg)"),
            .flag("--dry-run", help: "print the report and write nothing"),
            .value("--source-password-fd", valueName: "N",
                   help: "read a KeePass database's password from the first line of file descriptor N (else the terminal asks)"),
        ],
        shared: [.localOnly, .yes, .vault, .passwordFD],
        discussion: """
            Rows go to the shared credentials, or to the local store with --local.
            A row identical to a saved password is skipped; one with another
            password replaces it only after consent (Update Saved Password?, or
            --yes). Rows that are not web logins (Android apps, secure notes,
            cards) and rows without server, user name or password are listed
            with their row and line numbers: counts first, then failures, then
            the rows already saved. Everything is written at once or not at all.
            An encrypted Bitwarden export is refused: export as "JSON", not
            "JSON (Encrypted)". A KeePass database's password comes from
            --source-password-fd N or the terminal; key files are not read.
            Exit 0 when the file was read, even if rows were skipped; 1, with
            nothing changed, when the file is unreadable, malformed, truncated,
            not UTF-8, encrypted or of an unknown format.
            """)

    var file: String
    var format: ImportFormat?
    var dryRun: Bool
    var sourcePasswordFD: Int32?
    var options: SharedOptions

    init(_ arguments: ParsedArguments) throws(UsageError) {
        file = arguments.positionals[0]
        dryRun = arguments.has("--dry-run")
        if let text = arguments.value("--source-password-fd") {
            sourcePasswordFD = Int32(try ArgumentParser.integer(text, option: "--source-password-fd", in: 0...65_535))
        }
        options = try SharedOptions(arguments)
        if let text = arguments.value("--format"), text != "auto" {
            guard let chosen = ImportFormat(rawValue: text) else {
                let names = ["auto"] + ImportFormat.allCases.map(\.rawValue)
                throw UsageError("--format expects \(names.joined(separator: ", ")), not '\(text)'")
            }
            format = chosen
        }
    }

    func run(_ context: CommandContext) throws -> ExitCode {
        // The file first: a broken file is refused before the master password is asked.
        let source = try ImportSource.read(path: file, format: format) {
            try PasswordInput.read(from: sourcePasswordFD.map(PasswordSource.fileDescriptor) ?? .terminal, terminal: context.terminal,
                                   prompt: "Password of \(file): ", kind: .source)
        }
        let opener = try VaultAccess.opener(options, context)
        let store: Store = options.scope == .local ? .local : .shared
        // Planned and committed where the vault is open (the unlocked agent, else here);
        // consent is asked here in between, so no dialog waits while the vault is locked.
        let report = try opener.keepingSession {
            var plan = try ImportPlan(source: source, store: store) { logins in
                try opener.answer(.planImport(logins: logins, store: store), yes: options.yes, value: \.planned)
            }
            if dryRun { return plan.dryRunReport }
            plan.askConsent(TerminalConsent.policy(yes: options.yes, context))
            return try plan.commit { additions, updates in
                try opener.answer(.importLogins(additions: additions, updates: updates, store: store), yes: options.yes, value: \.imported)
            }
        }
        context.standardOutput.write(report.lines.joined(separator: "\n") + "\n")
        if context.unattendedConsent.declinedAny {
            context.note("updates were declined: with no terminal to ask, pass --yes to approve non-interactively")
        }
        return .success
    }
}
