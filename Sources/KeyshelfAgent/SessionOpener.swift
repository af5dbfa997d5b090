import KeyshelfCrypto
import KeyshelfVault

/// The one opening policy below the CLI (`VaultOpener`) and the TUI
/// (`TUI.run`) (issue 12): which sources of an unlocked session are tried,
/// in which order — the unlocked agent's keys and a master password the
/// front end has already read — and when the user must be asked instead.
/// Asking (a terminal prompt, the unlock screen), messages and exit codes
/// stay with the front end.
public struct SessionOpener {
    /// Which source is tried first when both can be.
    public enum Order: Sendable {
        /// The agent, then the password already read (the CLI: a running
        /// agent spares Argon2id even when `--password-fd` gave a line).
        case agentFirst
        /// The password already read, then the agent (the TUI: a password
        /// given by `--password-fd` is what the user asked for, so a wrong
        /// one fails with exit 5 even while an agent is unlocked).
        case passwordFirst
    }

    /// Where the session came from.
    public enum Source: Sendable {
        case agent
        case password
    }

    /// What `open` gives.
    public enum Outcome {
        /// An unlocked session, and its source.
        case opened(VaultSession, Source)
        /// Neither source gave a session: the front end asks the user.
        case askUser
    }

    /// The vault directory to open.
    public let directory: VaultDirectory
    /// Which source goes first.
    public let order: Order
    /// The agent to ask; nil leaves the agent out (`--no-agent`, `passwd`, `unlock`).
    public let agent: AgentSessionSource?
    /// Asked before Argon2id runs with limits above `local.vault`'s; made
    /// only when a password is used (the CLI's opens the terminal).
    let keyDerivationConsent: () -> any KeyDerivationConsent

    /// - Parameter keyDerivationConsent: makes the consent for higher Argon2id
    ///   limits when a password is used; by default they are refused.
    public init(directory: VaultDirectory, order: Order, agent: AgentSessionSource?,
                keyDerivationConsent: @escaping () -> any KeyDerivationConsent = { RefuseHigherLimits() }) {
        self.directory = directory
        self.order = order
        self.agent = agent
        self.keyDerivationConsent = keyDerivationConsent
    }

    /// Tries the sources in `order`.
    /// - Parameter password: the master password the front end has already
    ///   read, if any; nil leaves the password source out.
    /// - Throws: the open errors of `VaultDirectory.unlock` for `password`
    ///   (5 wrong password, 7 damaged); whatever `agent` throws.
    public func open(password: Secret?) throws -> Outcome {
        switch order {
        case .agentFirst:
            if let session = try agentSession() { return .opened(session, .agent) }
            if let password { return .opened(try open(with: password), .password) }
        case .passwordFirst:
            if let password { return .opened(try open(with: password), .password) }
            if let session = try agentSession() { return .opened(session, .agent) }
        }
        return .askUser
    }

    /// Opens the vault with `password`, as the user gave it after `.askUser`.
    /// - Throws: the open errors of `VaultDirectory.unlock`.
    public func open(with password: Secret) throws -> VaultSession {
        try directory.unlock(password: password, keyDerivationConsent: keyDerivationConsent())
    }

    private func agentSession() throws -> VaultSession? {
        try agent?.session(directory)
    }
}

/// How a `SessionOpener` asks the unlocked agent for a session, and what
/// it does with the agent's trouble.
public struct AgentSessionSource {
    /// The session from the agent's keys; nil when no agent is unlocked.
    let session: (VaultDirectory) throws -> VaultSession?

    /// Any trouble with the agent or the vault reads as "no agent"
    /// (`AgentClient.session(for:)`): the TUI's unlock screen then shows
    /// whatever opening with the password meets.
    public static var quiet: AgentSessionSource { AgentSessionSource { AgentClient.session(for: $0) } }

    /// `AgentError`s are handed to `failed` and read as "no agent"; a vault
    /// that cannot be opened (`VaultError`: damaged, …) is thrown.
    /// - Parameter environment: where the agent's socket is found.
    public static func reporting(environment: [String: String],
                                 failed: @escaping (AgentError) -> Void) -> AgentSessionSource {
        AgentSessionSource { directory in
            do {
                return try AgentClient.openSession(for: directory, environment: environment)
            } catch let error as AgentError {
                failed(error)
                return nil
            }
        }
    }
}
