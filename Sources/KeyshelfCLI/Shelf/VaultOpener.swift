import KeyshelfAgent
import KeyshelfCredentials
import KeyshelfCrypto
import KeyshelfVault

/// How one command reaches the vault, decided by `VaultAccess.opener`: the
/// CLI's side of the opening policy "the unlocked agent, else the master
/// password" (`SessionOpener`, shared with the TUI, with `.agentFirst`).
/// A `ShelfOperation` goes to the agent (`answer`); everything else opens a
/// session (`session()`) with the agent's keys, else with the master
/// password; the prompts, notes and `CLIError`s stay here.
final class VaultOpener {
    let directory: VaultDirectory
    let options: SharedOptions
    let context: CommandContext
    private(set) var viaAgent: Bool
    /// Whether the agent answered the last operation (`answer`).
    private(set) var agentAnswered = false
    /// The master password when read; with the agent, a line given on `--password-fd`.
    private(set) var masterPassword: Secret?
    private var passwordLineRead = false
    /// Why the agent could not be used, when it was tried and failed (gone, stopped, …).
    private var agentProblem: AgentError?
    /// Whether `keepingSession` runs: a vault opened here stays open for the next operation.
    private var keepsSession = false
    /// The vault opened here and its facade, kept while `keepingSession` runs.
    private var kept: (session: VaultSession, shelf: Keyshelf)?

    init(directory: VaultDirectory, options: SharedOptions, context: CommandContext, viaAgent: Bool) {
        self.directory = directory
        self.options = options
        self.context = context
        self.viaAgent = viaAgent
    }

    /// Reads the line given on `--password-fd`, if any, once.
    func readSpareLine() throws {
        guard !passwordLineRead else { return }
        passwordLineRead = true
        masterPassword = try options.passwordFD.flatMap { try LineReader.readLine(fd: $0, source: "file descriptor \($0)") }
    }

    /// Reads the master password now and chooses the password path, unless
    /// `keepingAgent` (`passwd`, whose operation carries the current password
    /// to the agent, which checks it).
    /// - Returns: the master password read.
    @discardableResult
    func readMasterPassword(keepingAgent: Bool = false) throws -> Secret {
        if !keepingAgent { viaAgent = false }
        passwordLineRead = true
        let password = try VaultAccess.masterPassword(options, context)
        masterPassword = password
        return password
    }

    /// `operation` answered by the agent when it can (issue 6: no Argon2id,
    /// no vault decode), else performed on the facade over the vault opened
    /// here — the same `ShelfOperation.perform`, so both give the same answer.
    /// Consent requests go to this process's policy for `yes`.
    /// - Parameter value: the part of the result this command wants
    ///   (`\.record`, `\.records`, `\.changeReport`, `\.deletion`).
    /// - Throws: the facade's `KeychainError`s (relayed from the agent or
    ///   thrown here), the errors of `session()`.
    func answer<T>(_ operation: ShelfOperation, yes: Bool, value: (ShelfResult) -> T?) throws -> T {
        agentAnswered = false
        if let answered = try agentResult(operation, yes: yes).flatMap(value) {
            agentAnswered = true
            return answered
        }
        let direct = try kept ?? openHere(yes: yes)
        if keepsSession { kept = direct }
        defer { if !keepsSession { direct.session.lock() } }
        guard let answered = value(try operation.perform(on: direct.shelf)) else {
            // `perform` gives each operation its own kind of result.
            throw CLIError(.failure, "the operation gave no result of the kind asked for")
        }
        return answered
    }

    /// The vault opened here (`session()`) and its facade with the consent policy for `yes`.
    private func openHere(yes: Bool) throws -> (session: VaultSession, shelf: Keyshelf) {
        let session = try session()
        do {
            return (session, try VaultAccess.shelf(session, yes: yes, context))
        } catch {
            session.lock()
            throw error
        }
    }

    /// Inside `keepingSession`: unless an unlocked agent serves the vault,
    /// opens it here now with the master password already read, so that a
    /// wrong one fails before anything else is asked (`passwd`, before the
    /// new password); the operations then run on this vault.
    /// - Throws: the errors of `session()`.
    func openHereUnlessAgentIsUnlocked() throws {
        guard keepsSession, kept == nil else { return }
        if viaAgent && VaultAccess.agentIsUnlocked(directory, context) { return }
        viaAgent = false
        kept = try openHere(yes: false)
    }

    /// Runs `body`, whose operations (`answer`) all run on one vault when
    /// they are performed here: the master password is asked and the vault
    /// opened once, not once per operation, and locked when `body` returns.
    /// For commands made of several operations (`login`, `import`).
    func keepingSession<T>(_ body: () throws -> T) rethrows -> T {
        keepsSession = true
        defer {
            keepsSession = false
            kept?.session.lock()
            kept = nil
        }
        return try body()
    }

    /// Inside `keepingSession`: the facade over the vault opened here (now,
    /// unless already open: with the agent's keys, else the master password),
    /// for what no operation reads (an item's notes for `edit --edit-notes`).
    /// Operations performed here afterwards run on the same vault.
    /// - Throws: the errors of `session()`.
    func keptShelf(yes: Bool) throws -> Keyshelf {
        precondition(keepsSession, "keptShelf outside keepingSession")
        if let kept { return kept.shelf }
        let opened = try openHere(yes: yes)
        kept = opened
        return opened.shelf
    }

    /// `operation` answered by the agent; nil without an agent, or when
    /// the agent hands the operation back. An answer lost after `passwd`'s
    /// request was sent is thrown: that operation is never repeated here.
    private func agentResult(_ operation: ShelfOperation, yes: Bool) throws -> ShelfResult? {
        guard viaAgent else { return nil }
        do {
            let consent = TerminalConsent.policy(yes: yes, context)
            guard let result = try AgentClient.perform(operation, for: directory, environment: context.environment,
                                                       consent: consent, approveAll: yes) else { return nil }
            try readSpareLine()
            return result
        } catch let error as AgentError where error.code != .answerLost {
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
    func session() throws -> VaultSession {
        let opener = sessionOpener(agent: viaAgent ? agentSource(failed: agentFailed) : nil)
        switch try opener.open(password: masterPassword) {
        case .opened(let session, .agent):
            let session = VaultAccess.reportingNotes(session, context)
            try readSpareLine()
            return session
        case .opened(let session, .password):
            return VaultAccess.reportingNotes(session, context)
        case .askUser:
            return VaultAccess.reportingNotes(try opener.open(with: passwordInsteadOfAgent()), context)
        }
    }

    /// The session from the unlocked agent's keys alone; nil without
    /// `viaAgent`, when no agent is unlocked or when it cannot be used (noted
    /// on standard error). Afterwards `session()` takes the password path.
    /// For the git credential helper, which asks nothing when nobody can
    /// unlock the vault.
    /// - Throws: `VaultError` for a vault that cannot be opened (damaged, …).
    func agentSessionOnly() throws -> VaultSession? {
        guard viaAgent else { return nil }
        viaAgent = false
        let source = agentSource { [context] in context.note("not using the agent: \($0.reason)") }
        guard case .opened(let session, _) = try sessionOpener(agent: source).open(password: nil) else { return nil }
        return VaultAccess.reportingNotes(session, context)
    }

    /// The shared policy with the CLI's order (the agent before a password
    /// read up front) and the terminal's consent to higher Argon2id limits.
    private func sessionOpener(agent: AgentSessionSource?) -> SessionOpener {
        SessionOpener(directory: directory, order: .agentFirst, agent: agent,
                      keyDerivationConsent: { [context] in TerminalKeyDerivationConsent.policy(context) })
    }

    /// This command's agent, telling `failed` why it could not be used.
    private func agentSource(failed: @escaping (AgentError) -> Void) -> AgentSessionSource {
        .reporting(environment: context.environment, failed: failed)
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
