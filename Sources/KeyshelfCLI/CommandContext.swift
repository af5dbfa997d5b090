import KeyshelfCredentials

/// What a running command may touch: the environment, standard output and
/// error, and the controlling terminal (opened on first use).
final class CommandContext {
    let environment: [String: String]
    let standardOutput = FileOutput.standardOutput
    let standardError = FileOutput.standardError
    private var terminalOpened = false
    private var openedTerminal: Terminal?
    /// Declines consent requests when there is no terminal and no `--yes`,
    /// and remembers it for the error report's hint.
    let unattendedConsent = UnattendedConsent()

    /// The terminal UI `keyshelf`, `keyshelf demo` and theme completion use.
    let terminalUI: TerminalUI

    init(environment: [String: String], terminalUI: TerminalUI) {
        self.environment = environment
        self.terminalUI = terminalUI
    }

    /// `/dev/tty`, or nil when the process has none.
    func terminal() -> Terminal? {
        if !terminalOpened {
            terminalOpened = true
            openedTerminal = Terminal.open()
        }
        return openedTerminal
    }

    /// From now on `terminal()` is nil: nothing is asked on `/dev/tty`
    /// (the git helper under `GIT_TERMINAL_PROMPT=0`).
    func disableTerminal() {
        terminalOpened = true
        openedTerminal = nil
    }

    /// Writes a note for the user on standard error, made inert.
    func note(_ text: String) {
        standardError.write("keyshelf: " + InertText.make(text) + "\n")
    }
}
