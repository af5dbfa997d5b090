import CCurses
import Foundation
import KeyshelfAgent
import KeyshelfCrypto
import KeyshelfVault

/// Why the TUI could not start: the message `TUI.run` prints on standard
/// error and its exit code (DESIGN §8).
struct TUIStartFailure: Error {
    let message: String
    let code: Int32
}

/// The vault the TUI starts on: the directory the unlock screen opens, the
/// session when it is open already, the demo's throwaway folder.
struct TUIStart {
    var directory: VaultDirectory
    /// Nil: the unlock screen asks the master password.
    var session: VaultSession?
    /// The throwaway vault of `keyshelf demo`, removed when the TUI ends.
    var demoFolder: URL?
    /// The title line of the browser.
    var title: String

    /// Checks what the screen needs before anything is opened: standard
    /// input and output are terminals, `$TERM` is one curses can drive.
    /// - Throws: `TUIStartFailure` with exit code 2.
    static func checkTerminal(environment: [String: String]) throws(TUIStartFailure) {
        // Curses on a pipe or /dev/null would write escapes nobody reads and wait for keys that never come.
        guard isatty(STDIN_FILENO) == 1, isatty(STDOUT_FILENO) == 1 else {
            throw TUIStartFailure(message: TUI.notATerminal, code: 2)
        }
        if let problem = CursesScreen.terminalProblem(environment: environment) {
            throw TUIStartFailure(message: problem, code: 2)
        }
    }

    /// The theme named by `--theme`, else by the config file, else "dark".
    /// - Throws: `TUIStartFailure` with exit code 2 for a theme that cannot be loaded.
    static func theme(_ options: TUIOptions, _ configuration: TUIConfiguration,
                      environment: [String: String]) throws(TUIStartFailure) -> Theme {
        do {
            return try Theme.load(named: options.theme ?? configuration.theme ?? "dark", searchPaths: Theme.searchPaths(environment: environment))
        } catch {
            throw TUIStartFailure(message: "\(error)", code: 2)
        }
    }

    /// The demo's throwaway vault, else the vault of `options` opened by the
    /// shared `SessionOpener` with `.passwordFirst`: a password given by
    /// `--password-fd` is used, else an unlocked agent (`keyshelf unlock`;
    /// any trouble with it reads as "no agent"), else the unlock screen asks.
    /// - Throws: `TUIStartFailure`: 5 wrong password, 7 damaged vault, 1 otherwise.
    static func open(_ options: TUIOptions) throws(TUIStartFailure) -> TUIStart {
        let directory = VaultDirectory(url: options.vaultDirectory)
        do {
            if options.demo {
                let demo = try DemoData.makeVault()
                return TUIStart(directory: demo.session.directory, session: demo.session, demoFolder: demo.folder,
                                title: "keyshelf demo · throwaway vault, master password \"\(DemoData.password)\"")
            }
            let opener = SessionOpener(directory: directory, order: .passwordFirst, agent: options.useAgent ? .quiet : nil)
            var start = TUIStart(directory: directory, title: "keyshelf · \(TerminalText.sanitize(directory.url.path))")
            if case .opened(let session, _) = try opener.open(password: options.password) { start.session = session }
            return start
        } catch let error as VaultError {
            throw TUIStartFailure(message: error.description, code: error.exitCode)
        } catch {
            throw TUIStartFailure(message: "\(error)", code: 1)
        }
    }

    /// Removes the demo's throwaway vault, if any.
    func removeDemoFolder() {
        if let demoFolder { try? FileManager.default.removeItem(at: demoFolder) }
    }
}
