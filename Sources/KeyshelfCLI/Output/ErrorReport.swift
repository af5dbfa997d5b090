import KeyshelfCredentials
import KeyshelfVault

/// Turns any error into one line on standard error and its exit code (DESIGN §8).
///
/// This is the one place that turns a status into an exit code (through
/// `KeychainStatus.exitCode`, the vault module's table): every message whose
/// error has a status ends in `(errSecAuthFailed -25293)`-style text
/// (`KeychainStatus.tagged`).
enum ErrorReport {
    /// What to print for an error: exit code, sentence, and the status that applies.
    struct Description: Equatable {
        var code: ExitCode
        var text: String
        /// The `errSec…` status, if one applies.
        var status: KeychainStatus?

        /// `text (errSecName code)`, or `text` alone when there is no status.
        var message: String { status?.tagged(text) ?? text }
    }

    /// Added to a consent decline that happened because nobody could be asked.
    static let yesHint = "; with no terminal to ask, pass --yes to approve non-interactively"

    /// Prints the message for `error` and returns the exit code.
    static func report(_ error: any Error, context: CommandContext) -> Int32 {
        var description = describe(error)
        if description.code == .canceled && context.unattendedConsent.declinedAny {
            description.text += yesHint
        }
        context.note(description.message)
        if let usage = error as? UsageError, let name = usage.command {
            let spec = name.isEmpty ? TUICommand.spec : CommandLineInterface.commands.first { $0.spec.name == name }?.spec
            if let spec {
                context.standardError.write(Help.usageLine(spec) + "\n")
                context.standardError.write("Run '\(spec.invocation) --help' for more.\n")
            }
        }
        return description.code.rawValue
    }

    /// The exit code, sentence and status for `error`.
    static func describe(_ error: any Error) -> Description {
        switch error {
        case let error as UsageError:
            return Description(code: .usage, text: error.message)
        case let error as CLIError:
            return Description(code: error.exitCode, text: error.message, status: status(of: error.exitCode))
        case let error as PasswordRulesError:
            return Description(code: .usage, text: error.message, status: .param)
        case let error as ServerNameError:
            return Description(code: .usage, text: error.description, status: .param)
        case let error as KeychainError:
            return Description(code: exitCode(error.status), text: error.reason, status: error.status)
        case let error as SignInWithAppleError:
            return Description(code: .failure, text: "Sign in with Apple: the \(error.check) check failed: \(error.reason)")
        case let error as VaultError:
            // Plain I/O trouble (files, locks, links) names no status and exits 1.
            return Description(code: error.reportedStatus.map(exitCode) ?? .failure, text: error.description,
                               status: error.reportedStatus)
        default:
            return Description(code: .failure, text: String(describing: error))
        }
    }

    /// The exit code of `status` (DESIGN §8), from the vault module's table.
    static func exitCode(_ status: KeychainStatus) -> ExitCode {
        ExitCode(rawValue: status.exitCode) ?? .failure
    }

    /// The status an exit code stands for (DESIGN §8), for the CLI's own
    /// errors: the table read backwards; none for success and usage errors,
    /// whose messages name no status.
    static func status(of code: ExitCode) -> KeychainStatus? {
        guard code != .success, code != .usage else { return nil }
        return KeychainStatus.allCases.first { exitCode($0) == code }
    }
}
