import KeyshelfCredentials
import KeyshelfVault

/// Turns any error into one line on standard error and its exit code (DESIGN §8).
enum ErrorReport {
    /// Prints the message for `error` and returns the exit code.
    static func report(_ error: any Error, context: CommandContext) -> Int32 {
        let (code, message) = describe(error)
        context.note(message)
        if let usage = error as? UsageError, let name = usage.command {
            let spec = name.isEmpty ? TUICommand.spec : CommandLineInterface.commands.first { $0.spec.name == name }?.spec
            if let spec {
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
        case let error as ServerNameError:
            return (.usage, error.description)
        case let error as KeychainError:
            return (ExitCode(rawValue: error.status.exitCode) ?? .failure, error.description)
        case let error as VaultError:
            return (ExitCode(rawValue: error.exitCode) ?? .failure, error.description)
        default:
            return (.failure, String(describing: error))
        }
    }
}
