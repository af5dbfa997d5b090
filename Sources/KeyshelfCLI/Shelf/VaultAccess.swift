import KeyshelfCredentials
import KeyshelfCrypto
import KeyshelfVault

/// Finds and unlocks the vault for a command (DESIGN §8): the directory
/// from `--vault` / `$KEYSHELF_VAULT` / XDG, the master password from
/// `--password-fd` / `$KEYSHELF_PASSWORD_FILE` / the terminal.
enum VaultAccess {
    /// The vault directory for `options`.
    static func directory(_ options: SharedOptions, _ context: CommandContext) -> VaultDirectory {
        VaultDirectory.resolve(option: options.vault, environment: context.environment)
    }

    /// Where the master password comes from for `options`.
    static func passwordSource(_ options: SharedOptions, _ context: CommandContext) -> PasswordSource {
        .master(fd: options.passwordFD, environment: context.environment)
    }

    /// The vault directory, checked to hold a vault.
    /// - Throws: `VaultError.noVault` (exit 3), so nobody is asked for a password in vain.
    static func existingDirectory(_ options: SharedOptions, _ context: CommandContext) throws -> VaultDirectory {
        let directory = directory(options, context)
        guard directory.exists else {
            throw VaultError(.noVault, file: directory.url.path, reason: "no vault here; create one with `keyshelf init`")
        }
        return directory
    }

    /// Reads the master password (`--password-fd`, `$KEYSHELF_PASSWORD_FILE`, or the terminal).
    /// - Throws: the errors of `PasswordInput.read`.
    static func masterPassword(_ options: SharedOptions, _ context: CommandContext) throws(CLIError) -> Secret {
        try PasswordInput.read(from: passwordSource(options, context), terminal: context.terminal, prompt: "Master password: ")
    }

    /// Reads the master password and unlocks the vault.
    /// - Throws: `VaultError` `.noVault` (exit 3) before asking anything when
    ///   there is no vault; the password input errors of `PasswordInput`;
    ///   the open errors of `VaultDirectory.unlock` (5 wrong password, 7 damaged).
    static func unlock(_ options: SharedOptions, _ context: CommandContext) throws -> VaultSession {
        let directory = try existingDirectory(options, context)
        return try directory.unlock(password: masterPassword(options, context))
    }

    /// The domain facade over `session`, with this run's consent policy and
    /// the terminal for `userPresence` items.
    static func shelf(_ session: VaultSession, yes: Bool, _ context: CommandContext) throws -> Keyshelf {
        try Keyshelf(
            vault: session,
            consent: TerminalConsent.policy(yes: yes, context),
            userPresence: context.terminal().map(TerminalUserPresence.init))
    }
}
