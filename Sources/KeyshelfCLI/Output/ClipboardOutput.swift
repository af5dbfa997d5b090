import Foundation
import KeyshelfClipboard
import KeyshelfCrypto

/// `--clip` of `get` and `otp`: copies to the clipboard as the TUI's copy keys do,
/// leaving the detached clearer behind (docs/cli.md).
enum ClipboardOutput {
    /// Copies `value`; the note on standard error says where it went.
    /// - Parameter what: the value for the message, e.g. `the password of "anna" on example.com`.
    /// - Throws: `CLIError` (exit 1) when no clipboard took it.
    static func copy(_ value: Secret, what: String, _ context: CommandContext) throws(CLIError) {
        let terminal = context.terminal()
        let clipboard = Clipboard(
            clearAfter: Clipboard.clearSeconds(environment: context.environment), environment: context.environment,
            clearerExecutable: OwnExecutable.path,
            writeTerminal: terminal.map { terminal in { bytes in bytes.withUnsafeBytes { _ = write(terminal.fd, $0.baseAddress, $0.count) } } })
        let report = clipboard.copy(value, now: Date())
        let message = report.message(what)
        guard report.copied || report.sentToTerminal else { throw CLIError(.failure, message) }
        context.note(message)
    }
}
