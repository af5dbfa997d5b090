import KeyshelfAgent
import KeyshelfCredentials
import KeyshelfCrypto
import KeyshelfVault

/// Finds the vault for a command (DESIGN §8): the directory from `--vault`
/// / `$KEYSHELF_VAULT` / XDG, the master password from `--password-fd` /
/// `$KEYSHELF_PASSWORD_FILE` / the terminal. Every command reaches the vault
/// through the `VaultOpener` that `opener(_:_:)` returns.
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
    /// - Throws: `VaultError.noVault` (exit 3), so nobody is asked for a password in vain;
    ///   `.io` (exit 1) when the vault file cannot be examined or is a symbolic link.
    static func existingDirectory(_ options: SharedOptions, _ context: CommandContext) throws -> VaultDirectory {
        let directory = directory(options, context)
        guard try directory.vaultExists() else {
            throw VaultError(.noVault, file: directory.url.path, reason: "no vault here; create one with `keyshelf init`")
        }
        return directory
    }

    /// Reads the master password (`--password-fd`, `$KEYSHELF_PASSWORD_FILE`, or the terminal).
    /// - Throws: the errors of `PasswordInput.read`.
    static func masterPassword(_ options: SharedOptions, _ context: CommandContext) throws(CLIError) -> Secret {
        try PasswordInput.read(from: passwordSource(options, context), terminal: context.terminal, prompt: "Master password: ")
    }

    /// Decides how the vault will be reached: through the agent when it is
    /// unlocked, else with the master password. With the agent, a line given
    /// on `--password-fd` is still read (so scripted input keeps its layout)
    /// and kept for the case that the agent locks before the vault is opened.
    /// - Parameter readsMoreInput: the command reads input after the master
    ///   password (`add`'s item password). A `--password-fd` line is then read
    ///   now (it comes first in the input either way); a master password that
    ///   would be asked on the terminal is asked now unless the agent is
    ///   unlocked (one `status` request), so the prompts keep their order.
    ///   Otherwise the agent is simply tried first.
    /// - Parameter agent: false forces the password (`unlock`); `--no-agent` does too.
    /// - Throws: `VaultError.noVault` (exit 3) before asking anything; the
    ///   password input errors of `PasswordInput`.
    static func opener(_ options: SharedOptions, _ context: CommandContext, agent: Bool = true,
                       readsMoreInput: Bool = false) throws -> VaultOpener {
        let directory = try existingDirectory(options, context)
        let opener = VaultOpener(directory: directory, options: options, context: context, viaAgent: agent && !options.noAgent)
        let asksOnTerminal = !passwordSource(options, context).isScripted && context.terminal() != nil
        if !opener.viaAgent || (readsMoreInput && asksOnTerminal) {
            if opener.viaAgent && agentIsUnlocked(directory, context) {
                try opener.readSpareLine()
            } else {
                try opener.readMasterPassword()
            }
        }
        if readsMoreInput { try opener.readSpareLine() }
        return opener
    }

    /// Whether an unlocked agent serves `directory` (one `status` request).
    /// Agent trouble is noted on standard error and reads as "no".
    static func agentIsUnlocked(_ directory: VaultDirectory, _ context: CommandContext) -> Bool {
        do {
            return try AgentClient.status(AgentLocation(vault: directory, environment: context.environment))?.unlocked ?? false
        } catch let error as AgentError {
            context.note("not using the agent: \(error.reason)")
        } catch {
            context.note("not using the agent: \(error)")
        }
        return false
    }

    /// Says once on standard error that `shared.vault` is missing (it then
    /// reads as empty; docs/vault-format.md), routes the session's warnings
    /// (`VaultWarning`: what a save that succeeded could not do) to standard
    /// error, and returns `session`.
    static func reportingNotes(_ session: VaultSession, _ context: CommandContext) -> VaultSession {
        session.warningHandler = { context.note("warning: \($0)") }
        if session.isSharedFileMissing {
            context.note("note: \(session.directory.url.appendingPathComponent("shared.vault").path) is missing; the shared credentials read as empty (restore it from backups/ or your sync copy)")
        }
        return session
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
