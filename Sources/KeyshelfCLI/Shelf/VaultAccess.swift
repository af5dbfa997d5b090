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
        try prepare(options, context, agent: agent).open()
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
    /// - Throws: `VaultError.noVault` (exit 3) before asking anything; the
    ///   password input errors of `PasswordInput`.
    static func prepare(_ options: SharedOptions, _ context: CommandContext, agent: Bool = true,
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
    private static func agentIsUnlocked(_ directory: VaultDirectory, _ context: CommandContext) -> Bool {
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

    /// The session of the unlocked agent for `directory` (issue 6); nil with
    /// `--no-agent`, when no agent is unlocked, or when the agent cannot be
    /// used (noted on standard error; the caller takes the password path).
    /// - Parameter failed: told the agent's trouble when it could not be used
    ///   (by default it is noted on standard error).
    /// - Throws: `VaultError` for a vault that cannot be opened (damaged, …).
    static func agentSession(_ directory: VaultDirectory, _ options: SharedOptions, _ context: CommandContext,
                             failed: ((AgentError) -> Void)? = nil) throws -> VaultSession? {
        guard !options.noAgent else { return nil }
        do {
            return try AgentClient.openSession(for: directory, environment: context.environment).map { reportingNotes($0, context) }
        } catch let error as AgentError {
            if let failed { failed(error) } else { context.note("not using the agent: \(error.reason)") }
            return nil
        }
    }

    /// How one command reaches the vault, decided by `VaultAccess.prepare`:
    /// the unlocked agent (its operations, else a session from its keys) or
    /// the master password read up front.
    final class VaultOpener {
        let directory: VaultDirectory
        let options: SharedOptions
        let context: CommandContext
        private(set) var viaAgent: Bool
        /// The master password when read; with the agent, a line given on `--password-fd`.
        private(set) var masterPassword: Secret?
        private var passwordLineRead = false
        /// Why the agent could not be used, when it was tried and failed (gone, stopped, …).
        private var agentProblem: AgentError?

        init(directory: VaultDirectory, options: SharedOptions, context: CommandContext, viaAgent: Bool) {
            self.directory = directory
            self.options = options
            self.context = context
            self.viaAgent = viaAgent
        }

        /// Reads the line given on `--password-fd`, if any, once.
        fileprivate func readSpareLine() throws {
            guard !passwordLineRead else { return }
            passwordLineRead = true
            masterPassword = try options.passwordFD.flatMap { try LineReader.readLine(fd: $0, source: "file descriptor \($0)") }
        }

        /// Reads the master password now and chooses the password path.
        fileprivate func readMasterPassword() throws {
            viaAgent = false
            passwordLineRead = true
            masterPassword = try VaultAccess.masterPassword(options, context)
        }

        /// `operation` answered by the agent when it can (issue 6: no Argon2id,
        /// no vault decode), else `direct` run on the facade over the vault
        /// opened here — the same facade method, so both give the same answer.
        /// Consent requests go to this process's policy for `yes`.
        /// - Parameter value: the part of the agent's result this command wants.
        /// - Throws: the facade's `KeychainError`s (relayed from the agent or
        ///   thrown here), the errors of `open()`.
        func answer<T>(_ operation: AgentOperation, yes: Bool, value: (AgentResult) -> T?,
                       direct: (Keyshelf) throws -> T) throws -> T {
            if let answered = try agentResult(operation, yes: yes).flatMap(value) { return answered }
            let session = try open()
            defer { session.lock() }
            return try direct(VaultAccess.shelf(session, yes: yes, context))
        }

        /// `operation` answered by the agent; nil without an agent, or when
        /// the agent hands the operation back.
        private func agentResult(_ operation: AgentOperation, yes: Bool) throws -> AgentResult? {
            guard viaAgent else { return nil }
            do {
                let consent = TerminalConsent.policy(yes: yes, context)
                guard let result = try AgentClient.perform(operation, for: directory, environment: context.environment,
                                                           consent: consent, approveAll: yes) else { return nil }
                try readSpareLine()
                return result
            } catch let error as AgentError {
                agentFailed(error)
                viaAgent = false
                return nil
            }
        }

        /// Opens the vault: with the agent's keys, else with the master
        /// password (asked now when the agent locked meanwhile and none was
        /// read up front); Argon2id runs here, limits above `local.vault`'s
        /// only when the terminal approves (`TerminalKeyDerivationConsent`).
        /// - Throws: the open errors of `VaultDirectory.unlock` (5 wrong
        ///   password, 7 damaged); the password input errors of `PasswordInput`;
        ///   a usage error (2) naming the agent's trouble when the agent is gone
        ///   or stopped and there is no master password to fall back on.
        func open() throws -> VaultSession {
            if viaAgent, let session = try VaultAccess.agentSession(directory, options, context, failed: agentFailed) {
                try readSpareLine()
                return session
            }
            let password = try masterPassword ?? passwordInsteadOfAgent()
            let session = try directory.unlock(password: password, keyDerivationConsent: TerminalKeyDerivationConsent.policy(context))
            return VaultAccess.reportingNotes(session, context)
        }

        /// The master password, read because the agent was not there; when
        /// the agent was there but failed and nothing can give the password,
        /// the error names the agent's trouble (issue 11: a crashed agent
        /// must not leave its clients saying "no master password").
        private func passwordInsteadOfAgent() throws -> Secret {
            if let agentProblem, !passwordCanBeRead {
                throw CLIError(.usage, "the agent cannot be used (\(agentProblem.reason)), and there is no terminal to ask the master password instead; run `keyshelf unlock` again, or pass --password-fd N or set $KEYSHELF_PASSWORD_FILE")
            }
            return try VaultAccess.masterPassword(options, context)
        }

        /// Whether a master password can be had: a scripted source or a terminal.
        private var passwordCanBeRead: Bool {
            masterPassword != nil || VaultAccess.passwordSource(options, context).isScripted || context.terminal() != nil
        }

        /// Remembers why the agent could not be used, and notes it when the
        /// command goes on with the master password (otherwise the error of
        /// `passwordInsteadOfAgent` names it).
        private func agentFailed(_ error: AgentError) {
            agentProblem = error
            if passwordCanBeRead { context.note("not using the agent: \(error.reason)") }
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
