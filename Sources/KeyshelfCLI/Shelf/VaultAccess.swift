import KeyshelfAgent
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

    /// Unlocks the vault: with the unlocked agent's keys when there is one
    /// (no password read, no Argon2id), else with the master password.
    /// - Parameter agent: false forces the password (`passwd`); `--no-agent` does too.
    /// - Throws: `VaultError` `.noVault` (exit 3) before asking anything when
    ///   there is no vault; the password input errors of `PasswordInput`;
    ///   the open errors of `VaultDirectory.unlock` (5 wrong password, 7 damaged).
    static func unlock(_ options: SharedOptions, _ context: CommandContext, agent: Bool = true) throws -> VaultSession {
        try prepareUnlock(options, context, directory: existingDirectory(options, context), agent: agent)()
    }

    /// Decides how `directory` will be opened before anything else is read
    /// from input: the agent's session when it is unlocked, else the master
    /// password, read now. The returned function opens the vault (Argon2id
    /// runs there). With the agent, a line given on `--password-fd` is still
    /// read and ignored, so scripted input keeps its layout.
    /// - Throws: the password input errors of `PasswordInput`; `VaultError`
    ///   for a damaged vault found through the agent.
    static func prepareUnlock(_ options: SharedOptions, _ context: CommandContext, directory: VaultDirectory,
                              agent: Bool = true) throws -> () throws -> VaultSession {
        if agent, let session = try agentSession(directory, options, context) {
            if let fd = options.passwordFD { _ = try LineReader.readLine(fd: fd, source: "file descriptor \(fd)") }
            return { session }
        }
        let password = try masterPassword(options, context)
        return { try noteMissingFiles(directory.unlock(password: password), context) }
    }

    /// Says once on standard error that `shared.vault` is missing (it then
    /// reads as empty; docs/vault-format.md), and returns `session`.
    static func noteMissingFiles(_ session: VaultSession, _ context: CommandContext) -> VaultSession {
        if session.isSharedFileMissing {
            context.note("note: \(session.directory.url.appendingPathComponent("shared.vault").path) is missing; the shared credentials read as empty (restore it from backups/ or your sync copy)")
        }
        return session
    }

    /// The session of the unlocked agent for `directory` (issue 6); nil with
    /// `--no-agent`, when no agent is unlocked, or when the agent cannot be
    /// used (noted on standard error; the caller takes the password path).
    /// - Throws: `VaultError` for a vault that cannot be opened (damaged, …).
    static func agentSession(_ directory: VaultDirectory, _ options: SharedOptions, _ context: CommandContext) throws -> VaultSession? {
        guard !options.noAgent else { return nil }
        do {
            return try AgentClient.openSession(for: directory, environment: context.environment).map { noteMissingFiles($0, context) }
        } catch let error as AgentError {
            context.note("not using the agent: \(error.reason)")
            return nil
        }
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
