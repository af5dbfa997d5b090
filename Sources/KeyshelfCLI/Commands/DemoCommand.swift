/// `keyshelf demo`: the terminal UI on a throwaway vault of example data.
struct DemoCommand: Command {
    static let spec = CommandSpec(
        name: "demo", summary: "open the terminal UI on a throwaway vault with example data",
        options: [.value("--theme", valueName: "NAME", help: "colour theme from themes/")])

    var theme: String?

    init(_ arguments: ParsedArguments) throws(UsageError) {
        theme = arguments.value("--theme")
    }

    func run(_ context: CommandContext) throws -> ExitCode {
        let directory = VaultAccess.directory(SharedOptions(), context)
        return ExitCode(rawValue: context.terminalUI.run(TerminalUIRequest(vaultDirectory: directory.url, demo: true, theme: theme))) ?? .failure
    }
}
