import KeyshelfCrypto

/// The advice keyshelf gives about a new master password: a warning, never a refusal.
///
/// One rule for every place a vault is created (the TUI's create form; the
/// CLI's `init` may share it). A short master password falls to guessing
/// however costly Argon2id is made.
public enum MasterPasswordPolicy {
    /// A master password with fewer characters than this earns a warning.
    public static let recommendedMinimumCharacters = 12

    /// The warning shown for a short master password, as a question.
    public static let shortWarning = "Short master passwords can be guessed; continue?"

    /// Whether `password` has fewer than `recommendedMinimumCharacters`
    /// characters (Unicode scalars, counted on its UTF-8 bytes without
    /// copying the secret into a `String`).
    public static func isShort(_ password: Secret) -> Bool {
        characterCount(password) < recommendedMinimumCharacters
    }

    static func characterCount(_ password: Secret) -> Int {
        // Every byte that is not a UTF-8 continuation byte (10xxxxxx) starts a scalar.
        password.withUnsafeBytes { bytes in bytes.reduce(0) { $0 + ($1 & 0xC0 == 0x80 ? 0 : 1) } }
    }
}
