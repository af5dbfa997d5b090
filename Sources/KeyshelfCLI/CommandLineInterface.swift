import KeyshelfAgent
import KeyshelfClipboard

/// The `keyshelf` command line (DESIGN §8): finds the subcommand, parses its
/// arguments, runs it, and turns every error into a message on standard
/// error and a documented exit code.
public enum CommandLineInterface {
    /// The version `keyshelf --version` prints.
    public static let version = "0.1.0"

    /// Every subcommand, one line each; `keyshelf --help` lists them in this order.
    static let commands: [any Command.Type] = [
        InitCommand.self,
        GenerateCommand.self,
        RulesCommand.self,
        AddCommand.self,
        EditCommand.self,
        GetCommand.self,
        OtpCommand.self,
        ListCommand.self,
        SearchCommand.self,
        RmCommand.self,
        LoginCommand.self,
        AuditCommand.self,
        ImportCommand.self,
        ExportCommand.self,
        PasswdCommand.self,
        SyncCommand.self,
        UnlockCommand.self,
        LockCommand.self,
        StatusCommand.self,
        CredentialCommand.self,
        SiwaCommand.self,
        AssociateCommand.self,
        AssociationsCommand.self,
        DissociateCommand.self,
        AasaCommand.self,
        DemoCommand.self,
        CompletionCommand.self,
    ]

    /// Commands that work but are not listed, offered or completed: the
    /// completion scripts' name source.
    static let hiddenCommands: [any Command.Type] = [CompleteNamesCommand.self]

    /// Runs `keyshelf` with `arguments` (without the program name).
    /// - Parameter terminalUI: what `keyshelf` (no command) and `keyshelf demo`
    ///   open, and where theme completion finds names.
    /// - Returns: the process exit code.
    public static func run(arguments: [String], environment: [String: String], terminalUI: TerminalUI) -> Int32 {
        let context = CommandContext(environment: environment, terminalUI: terminalUI)
        let first = arguments.first
        switch first {
        case "--help", "-h", "help":
            context.standardOutput.write(overview())
            return ExitCode.success.rawValue
        case AgentServer.commandName:
            return AgentServer.run(arguments: Array(arguments.dropFirst()))
        case MergeDriverCommand.commandName:
            return MergeDriverCommand.run(arguments: Array(arguments.dropFirst()), context: context)
        case ClipboardClearer.commandName:
            return ClipboardClearer.run(arguments: Array(arguments.dropFirst()), environment: environment)
        case "--version":
            context.standardOutput.write("keyshelf \(version)\n")
            return ExitCode.success.rawValue
        default:
            break
        }
        let command: any Command.Type
        let rest: [String]
        let (leading, word) = splitLeadingVaultOptions(arguments)
        if let word, !word.hasPrefix("-") {
            guard let found = (commands + hiddenCommands).first(where: { $0.spec.name == word }) else {
                let hint = Suggestion.nearest(to: word, among: commands.map { $0.spec.name }).map { "did you mean '\($0)'? " } ?? ""
                return ErrorReport.report(UsageError("unknown command '\(word)'; \(hint)run 'keyshelf --help' for the list"), context: context)
            }
            command = found
            // `keyshelf --vault DIR get …`: leading options belong to the command.
            rest = Array(arguments.dropFirst(leading.count + 1)) + leading
        } else {
            // No command word: the TUI, which also takes --vault, --password-fd, --theme.
            command = TUICommand.self
            rest = arguments
        }
        return execute(command, arguments: rest, context: context)
    }

    private static func execute(_ command: any Command.Type, arguments: [String], context: CommandContext) -> Int32 {
        do {
            let parsed = try ArgumentParser.parse(arguments, spec: command.spec)
            if parsed.helpRequested {
                context.standardOutput.write(Help.text(command.spec))
                return ExitCode.success.rawValue
            }
            return try command.init(parsed).run(context).rawValue
        } catch var error as UsageError {
            if error.command == nil { error.command = command.spec.name }
            return ErrorReport.report(error, context: context)
        } catch {
            return ErrorReport.report(error, context: context)
        }
    }

    /// The `--vault DIR` / `--password-fd N` options before the first other
    /// word, and that word (the command, or nil when there is none).
    static func splitLeadingVaultOptions(_ arguments: [String]) -> (options: [String], word: String?) {
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            if argument == "--vault" || argument == "--password-fd" {
                index += 2
            } else if argument.hasPrefix("--vault=") || argument.hasPrefix("--password-fd=") {
                index += 1
            } else {
                break
            }
        }
        let end = min(index, arguments.count)
        return (Array(arguments[..<end]), index < arguments.count ? arguments[index] : nil)
    }

    /// The text of `keyshelf --help`.
    static func overview() -> String {
        var lines = [
            "keyshelf \(version): a password manager for the terminal",
            "",
            "usage: keyshelf [--vault DIR] [--password-fd N] [--theme NAME]   open the terminal UI",
            "       keyshelf COMMAND [options]",
            "",
            "commands:",
        ]
        for command in commands {
            let name = command.spec.name
            lines.append("  " + name + String(repeating: " ", count: max(2, 12 - name.count)) + command.spec.summary)
        }
        lines += [
            "",
            "Run 'keyshelf COMMAND --help' for a command's options.",
            "",
            "master password: the terminal; for scripts --password-fd N or $KEYSHELF_PASSWORD_FILE",
            "vault directory: --vault DIR, else $KEYSHELF_VAULT, else $XDG_DATA_HOME/keyshelf",
            "",
            ExitCodes.text,
        ]
        return lines.joined(separator: "\n") + "\n"
    }
}

/// The exit codes with their meaning (DESIGN §8), printed by `--help` and
/// the man page's EXIT STATUS.
enum ExitCodes {
    static let entries: [(code: ExitCode, meaning: String)] = [
        (.success, "success"),
        (.failure, "other error"),
        (.usage, "usage"),
        (.notFound, "not found (errSecItemNotFound)"),
        (.canceled, "canceled or consent declined (errSecUserCanceled)"),
        (.authFailed, "wrong master password (errSecAuthFailed)"),
        (.duplicate, "duplicate (errSecDuplicateItem)"),
        (.vaultDamaged, "vault damaged, truncated or of an unsupported version"),
        (.findings, "audit found problems"),
        (.locked, "status: the vault is locked"),
    ]

    /// "exit codes: 0 success · 1 other error · …", wrapped for a terminal.
    static var text: String {
        var lines: [String] = []
        var line = "exit codes:"
        for (index, entry) in entries.enumerated() {
            let item = "\(entry.code.rawValue) \(entry.meaning)"
            if line.count + item.count + 3 > 96 {
                lines.append(line)
                line = String(repeating: " ", count: 11)
            } else if index > 0 {
                line += " ·"
            }
            line += " " + item
        }
        return (lines + [line]).joined(separator: "\n")
    }
}
