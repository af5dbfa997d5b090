/// A failure of the agent or of talking to it: what went wrong and a
/// sentence the user can act on. Never contains a secret.
public struct AgentError: Error, Equatable, CustomStringConvertible, Sendable {
    /// The kind of failure.
    public enum Code: Equatable, Sendable {
        /// The socket directory is owned by another user, is not a
        /// directory, or is writable by group or others: refused.
        case unsafeDirectory
        /// The agent process could not be started or did not come up.
        case startFailed
        /// The other end broke the protocol (bad frame, another uid, another vault).
        case protocolError
        /// The agent runs another version of the protocol (keyshelf was
        /// upgraded while it was unlocked); `agentPID` is its process.
        case otherVersion
        /// The agent's socket is left but the agent is gone: nobody listens
        /// (`ECONNREFUSED`), or it closed the connection without answering
        /// (killed or crashed).
        case notRunning
        /// The agent is there but does not answer: stopped (SIGSTOP), stuck,
        /// or too slow for the client's connect or reply deadline.
        case notResponding
        /// A request the client must not repeat directly (`passwd`) was sent,
        /// and no answer came (the agent closed the connection, stopped, or
        /// missed the deadline): whether it was done is unknown.
        case answerLost
        /// A system call failed.
        case io
    }

    public var code: Code
    /// A sentence the user can act on.
    public var reason: String
    /// For `.otherVersion`: the agent's pid (`SO_PEERCRED`, same uid checked).
    public var agentPID: Int32?

    public init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    public var description: String { reason }

    public static func == (lhs: AgentError, rhs: AgentError) -> Bool { lhs.code == rhs.code }
}
