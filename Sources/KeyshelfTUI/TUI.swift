import Foundation
import KeyshelfCrypto

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

    public init(vaultDirectory: URL, password: Secret? = nil, demo: Bool = false, theme: String? = nil) {
        self.vaultDirectory = vaultDirectory
        self.password = password
        self.demo = demo
        self.theme = theme
    }
}

/// Entry point of the terminal UI.
public enum TUI {
    /// Runs the TUI until the user quits.
    /// - Returns: the process exit code (DESIGN §8).
    public static func run(_ options: TUIOptions) -> Int32 {
        FileHandle.standardError.write(Data("keyshelf: the terminal UI is not built yet\n".utf8))
        return 1
    }
}
