import Foundation
import KeyshelfCrypto

/// What `keyshelf` and `keyshelf demo` ask the terminal UI to open.
public struct TerminalUIRequest: Sendable {
    /// The vault directory (already resolved from `--vault`, `$KEYSHELF_VAULT`, XDG).
    public var vaultDirectory: URL
    /// The master password given by `--password-fd` / `$KEYSHELF_PASSWORD_FILE`;
    /// nil means the TUI shows its unlock screen.
    public var password: Secret?
    /// `keyshelf demo`: a throwaway vault filled with example data.
    public var demo: Bool
    /// `--theme NAME`; nil means the config file's choice or the default theme.
    public var theme: String?
    /// False for `--no-agent`: ignore an unlocked agent and ask for the master password.
    public var useAgent: Bool

    init(vaultDirectory: URL, password: Secret? = nil, demo: Bool = false, theme: String? = nil, useAgent: Bool = true) {
        self.vaultDirectory = vaultDirectory
        self.password = password
        self.demo = demo
        self.theme = theme
        self.useAgent = useAgent
    }
}

/// The terminal UI as the command line sees it. The executable's `main.swift`
/// (the composition root) fills it with KeyshelfTUI, so that KeyshelfCLI does
/// not depend on the TUI (nor link curses through it).
public struct TerminalUI: Sendable {
    /// Runs the TUI until the user quits; returns the process exit code
    /// (DESIGN §8: 0 quit, 1 other error, 2 no terminal / bad `$TERM` / bad theme,
    /// 5 wrong password, 7 damaged vault).
    public var run: @Sendable (TerminalUIRequest) -> Int32
    /// The theme names `--theme` accepts for the environment given (the
    /// completion scripts' source); the built-in ones included.
    public var themeNames: @Sendable (_ environment: [String: String]) -> [String]

    /// - Parameters:
    ///   - run: opens the TUI for a request and returns its exit code.
    ///   - themeNames: lists the theme names found for an environment.
    public init(run: @escaping @Sendable (TerminalUIRequest) -> Int32,
                themeNames: @escaping @Sendable (_ environment: [String: String]) -> [String]) {
        self.run = run
        self.themeNames = themeNames
    }
}
