/// One subcommand: its command-line shape, how it reads its arguments, and
/// what it does. Commands are thin: they parse, call the domain layer, print.
protocol Command: Sendable {
    /// Name, arguments, options and help text.
    static var spec: CommandSpec { get }
    /// Builds the command from parsed arguments.
    /// - Throws: `UsageError` for values that parse but make no sense together.
    init(_ arguments: ParsedArguments) throws(UsageError)
    /// Runs the command.
    /// - Returns: the exit code (usually `.success`).
    /// - Throws: any error; `ErrorReport` turns it into a message and exit code.
    func run(_ context: CommandContext) throws -> ExitCode
}
