/// Turns any error into one line on standard error and its exit code (DESIGN §8).
enum ErrorReport {
    /// Prints the message for `error` and returns the exit code.
    static func report(_ error: any Error, context: CommandContext) -> Int32 {
        let (code, message) = describe(error)
        context.note(message)
        if let usage = error as? UsageError {
            if let name = usage.command, let spec = CommandLineInterface.commands.first(where: { $0.spec.name == name })?.spec ?? (name.isEmpty ? TUICommand.spec : nil) {
                context.standardError.write(Help.usageLine(spec) + "\n")
                context.standardError.write("Run '\(spec.invocation) --help' for more.\n")
            }
        }
        return code.rawValue
    }

    /// The exit code and sentence for `error`.
    static func describe(_ error: any Error) -> (ExitCode, String) {
        switch error {
        case let error as UsageError:
            return (.usage, error.message)
        case let error as CLIError:
            return (error.exitCode, error.message)
        default:
            return (.failure, String(describing: error))
        }
    }
}
