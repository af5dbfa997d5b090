import KeyshelfTUI

/// `keyshelf` with no command: the terminal UI (DESIGN §7).
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
        throw CLIError(.failure, "TUI is not wired yet")
    }
}
