/// What a caller of `Keyshelf.reveal` does with the password; the verb opens
/// the reason a `userPresence` prompt shows ("copy the password for …").
public enum RevealPurpose: String, Sendable {
    /// Shown on screen (the TUI's `r`).
    case show
    /// Put on the clipboard (the TUI's `c`).
    case copy
}
