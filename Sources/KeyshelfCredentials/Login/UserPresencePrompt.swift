import KeyshelfCrypto

/// Asks the master password again before a `userPresence` item's secret is
/// released (DESIGN §2). The TUI shows a password dialog, the CLI reads `/dev/tty`.
public protocol UserPresencePrompt {
    /// The master password the user typed, or nil when they canceled or
    /// nobody can be asked. `reason` names the item ("show the password for …").
    func askMasterPassword(reason: String) -> Secret?
}
