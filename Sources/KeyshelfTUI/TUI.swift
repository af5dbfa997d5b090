import CCurses
import Foundation
import KeyshelfClipboard
import KeyshelfCrypto
import KeyshelfVault

/// What the CLI hands the TUI when it starts it (`keyshelf`, `keyshelf demo`).
public struct TUIOptions: Sendable {
    /// The vault directory (already resolved from `--vault`, `$KEYSHELF_VAULT`, XDG).
    public var vaultDirectory: URL
    /// The master password when given by `--password-fd` / `$KEYSHELF_PASSWORD_FILE`;
    /// nil means the TUI shows its unlock screen.
    public var password: Secret?
    /// `keyshelf demo`: open a throwaway vault filled with example data.
    public var demo: Bool
    /// `--theme NAME`; nil means the config file's choice or the default theme.
    public var theme: String?
    /// False for `--no-agent`: ignore an unlocked agent (`keyshelf unlock`) and
    /// ask for the master password.
    public var useAgent: Bool

    public init(vaultDirectory: URL, password: Secret? = nil, demo: Bool = false, theme: String? = nil, useAgent: Bool = true) {
        self.vaultDirectory = vaultDirectory
        self.password = password
        self.demo = demo
        self.theme = theme
        self.useAgent = useAgent
    }
}

/// Entry point of the terminal UI.
public enum TUI {
    /// Runs the TUI until the user quits.
    ///
    /// Errors that happen before the screen starts (no terminal, a `$TERM`
    /// curses cannot drive, unknown theme, wrong password given by `--password-fd`, damaged vault) are
    /// printed to standard error with their exit code; the terminal is
    /// restored on every exit path, including SIGTERM, SIGHUP and crash signals.
    /// - Returns: the process exit code (DESIGN §8): 0 quit, 1 other error,
    ///   2 standard input or output is not a terminal, unusable `$TERM`, or bad theme;
    ///   5 wrong password, 7 damaged vault.
    public static func run(_ options: TUIOptions) -> Int32 {
        let environment = ProcessInfo.processInfo.environment
        let configuration: TUIConfiguration
        let problems: [String]
        let theme: Theme
        let start: TUIStart
        do throws(TUIStartFailure) {
            try TUIStart.checkTerminal(environment: environment)
            (configuration, problems) = TUIConfiguration.load(environment: environment)
            theme = try TUIStart.theme(options, configuration, environment: environment)
            start = try TUIStart.open(options)
        } catch {
            return fail(error.message, code: error.code)
        }
        defer { start.removeDemoFolder() }

        installSignalHandlers()
        let noColor = !(environment["NO_COLOR"] ?? "").isEmpty
        let screen = CursesScreen(theme: theme, useColor: !noColor)
        defer { screen.stop() }
        // One clipboard for the whole run, so values copied before a lock are still known to it.
        let clipboard = Clipboard(
            clearAfter: Clipboard.clearSeconds(environment: environment, configured: configuration.clipboardClearSeconds),
            environment: environment, clearerExecutable: OwnExecutable.path, writeTerminal: Clipboard.standardOutputWriter)
        var shelfRun = ShelfRun(screen: screen, configuration: configuration, clipboard: clipboard, title: start.title,
                           directory: start.directory, demo: options.demo, firstStatus: problems.first)
        return shelfRun.loop(session: start.session)
    }

    /// What `run` prints when standard input or output is not a terminal.
    static let notATerminal = "the terminal UI needs a terminal; use the subcommands (keyshelf --help) in scripts"

    /// Prints `message` on standard error (sanitized) and returns `code`.
    static func fail(_ message: String, code: Int32) -> Int32 {
        FileHandle.standardError.write(Data("keyshelf: \(TerminalText.sanitize(message))\n".utf8))
        return code
    }

    /// Restores the terminal before the process dies of a signal: terminating
    /// signals and crashes (`fatalError` traps) alike, then re-raises the
    /// signal with its default action so the exit status stays truthful.
    private static func installSignalHandlers() {
        for sig in [SIGTERM, SIGHUP, SIGINT, SIGQUIT, SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP] {
            signal(sig) { received in
                endwin()
                signal(received, SIG_DFL)
                raise(received)
            }
        }
    }
}
