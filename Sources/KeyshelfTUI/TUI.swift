import CCurses
import Foundation
import KeyshelfAgent
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
        // Curses on a pipe or /dev/null would write escapes nobody reads and wait for keys that never come.
        guard isatty(STDIN_FILENO) == 1, isatty(STDOUT_FILENO) == 1 else {
            return fail(notATerminal, code: 2)
        }
        let environment = ProcessInfo.processInfo.environment
        if let problem = CursesScreen.terminalProblem(environment: environment) {
            return fail(problem, code: 2)
        }
        let (configuration, problems) = TUIConfiguration.load(environment: environment)
        let theme: Theme
        do {
            theme = try Theme.load(named: options.theme ?? configuration.theme ?? "dark", searchPaths: Theme.searchPaths(environment: environment))
        } catch {
            return fail("\(error)", code: 2)
        }
        var directory = VaultDirectory(url: options.vaultDirectory)
        var session: VaultSession?
        var demoFolder: URL?
        var title = "keyshelf · \(TerminalText.sanitize(directory.url.path))"
        do {
            if options.demo {
                let demo = try DemoData.makeVault()
                demoFolder = demo.folder
                session = demo.session
                directory = demo.session.directory
                title = "keyshelf demo · throwaway vault, master password \"\(DemoData.password)\""
            } else if let password = options.password {
                session = try directory.unlock(password: password)
            } else if options.useAgent {
                // Opens already unlocked when `keyshelf unlock` left an agent running.
                session = AgentClient.session(for: directory)
            }
        } catch let error as VaultError {
            return fail(error.description, code: error.exitCode)
        } catch {
            return fail("\(error)", code: 1)
        }
        defer {
            if let demoFolder { try? FileManager.default.removeItem(at: demoFolder) }
        }

        installSignalHandlers()
        let noColor = !(environment["NO_COLOR"] ?? "").isEmpty
        let screen = CursesScreen(theme: theme, useColor: !noColor)
        defer { screen.stop() }
        // One clipboard for the whole run, so values copied before a lock are still known to it.
        let clipboard = Clipboard(
            clearAfter: Clipboard.clearSeconds(environment: environment, configured: configuration.clipboardClearSeconds),
            environment: environment, clearerExecutable: OwnExecutable.path, writeTerminal: Clipboard.standardOutputWriter)
        var firstStatus = problems.first
        // Where the user was when the vault locked: server, account, pane; no secret.
        var selection: ShelfApp.Selection?
        while true {
            if session == nil {
                session = UnlockScreen(screen: screen, directory: directory).run()
            }
            guard let unlocked = session else { return 0 }
            let shelf: KeyshelfShelf
            do {
                shelf = try KeyshelfShelf(vault: unlocked, onLock: { [directory, demo = options.demo] in
                    unlocked.lock()
                    // Locking the TUI locks the agent too, so the keys are gone everywhere.
                    if !demo { AgentClient.lock(for: directory) }
                })
            } catch {
                screen.stop()
                return fail("\(error)", code: (error as? VaultError)?.exitCode ?? 1)
            }
            let app = ShelfApp(screen: screen, shelf: shelf, configuration: configuration, title: title, clipboard: clipboard)
            if let selection { app.restore(selection) }
            unlocked.warningHandler = { [weak app] warning in app?.setStatus("warning: \(warning)", error: true) }
            if let message = firstStatus {
                app.setStatus(message, error: true)
                firstStatus = nil
            } else if unlocked.isSharedFileMissing {
                app.setStatus("shared.vault is missing; the shared credentials read as empty (restore it from backups/ or your sync copy)", error: true)
            }
            switch app.run() {
            case .quit:
                app.clipboard.clearNow()
                unlocked.lock()
                return 0
            case .locked:
                selection = app.selection
                session = nil
            }
        }
    }

    /// What `run` prints when standard input or output is not a terminal.
    static let notATerminal = "the terminal UI needs a terminal; use the subcommands (keyshelf --help) in scripts"

    private static func fail(_ message: String, code: Int32) -> Int32 {
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
