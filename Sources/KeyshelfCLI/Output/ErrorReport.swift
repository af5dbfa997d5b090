import KeyshelfCredentials
import KeyshelfVault

/// Turns any error into one line on standard error and its exit code (DESIGN §8).
///
/// This is the one place that formats the `errSec…` status: every message
/// whose error has one ends in `(errSecAuthFailed -25293)`-style text.
enum ErrorReport {
    /// What to print for an error: exit code, sentence, and the status that applies.
    struct Description: Equatable {
        var code: ExitCode
        var text: String
        /// The `errSec…` status (`KeychainStatus` raw value, or another `OSStatus`), if one applies.
        var status: Int32?

        /// `text (errSecName code)`, or `text` alone when there is no status.
        var message: String {
            guard let status else { return text }
            let name = KeychainStatus(rawValue: status)?.name ?? "OSStatus"
            return "\(text) (\(name) \(status))"
        }
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
            return Description(code: error.exitCode, text: error.message, status: status(of: error.exitCode)?.rawValue)
        case let error as PasswordRulesError:
            return Description(code: .usage, text: error.message, status: KeychainStatus.param.rawValue)
        case let error as ServerNameError:
            return Description(code: .usage, text: error.description, status: KeychainStatus.param.rawValue)
        case let error as KeychainError:
            return Description(code: ExitCode(rawValue: error.status.exitCode) ?? .failure, text: error.reason,
                               status: error.status.rawValue)
        case let error as SignInWithAppleError:
            return Description(code: .failure, text: "Sign in with Apple: the \(error.check) check failed: \(error.reason)")
        case let error as VaultError:
            // Plain I/O trouble (files, locks, links) has no Keychain status to look up.
            let plainIO = [.io, .changedOnDisk, .locked].contains(error.code)
            return Description(code: ExitCode(rawValue: error.exitCode) ?? .failure, text: error.description,
                               status: plainIO ? nil : error.status)
        default:
            return Description(code: .failure, text: String(describing: error))
        }
    }

    /// The status an exit code stands for (DESIGN §8), for the CLI's own errors.
    static func status(of code: ExitCode) -> KeychainStatus? {
        switch code {
        case .notFound: .itemNotFound
        case .canceled: .userCanceled
        case .authFailed: .authFailed
        case .duplicate: .duplicateItem
        case .vaultDamaged: .decode
        case .success, .failure, .usage, .findings, .locked: nil
        }
    }
}
