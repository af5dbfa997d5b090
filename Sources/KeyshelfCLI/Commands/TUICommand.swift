/// `keyshelf` with no command: the terminal UI (DESIGN §7). A master
/// password given by `--password-fd` / `$KEYSHELF_PASSWORD_FILE` replaces the
/// unlock screen; otherwise the TUI asks for it itself.
struct TUICommand: Command {
    static let spec = CommandSpec(
        name: "", summary: "open the terminal UI",
        options: [.value("--theme", valueName: "NAME", help: "colour theme from themes/")],
        shared: [.vault, .passwordFD])

    var options: SharedOptions
    var theme: String?

    init(_ arguments: ParsedArguments) throws(UsageError) {
        options = try SharedOptions(arguments)
        theme = arguments.value("--theme")
    }

    func run(_ context: CommandContext) throws -> ExitCode {
        let source = VaultAccess.passwordSource(options, context)
        let password = source.isScripted
            ? try PasswordInput.read(from: source, terminal: context.terminal, prompt: "")
            : nil
        let request = TerminalUIRequest(
            vaultDirectory: VaultAccess.directory(options, context).url, password: password, theme: theme,
            useAgent: !options.noAgent)
        return ExitCode(rawValue: context.terminalUI.run(request)) ?? .failure
    }
}
