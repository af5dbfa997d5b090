/// What an agent reports about itself (the `status` reply, docs/agent-protocol.md).
public struct AgentStatus: Equatable, Sendable {
    /// Whether the agent holds keys.
    public var unlocked: Bool
    /// The vault directory it serves (resolved path).
    public var vaultPath: String
    /// Seconds until the idle limit locks it (0 when locked).
    public var idleSecondsLeft: UInt64
    /// Seconds until the absolute limit locks it (0 when locked).
    public var secondsLeft: UInt64
    /// The agent's process id.
    public var pid: Int32

    public init(unlocked: Bool, vaultPath: String, idleSecondsLeft: UInt64, secondsLeft: UInt64, pid: Int32) {
        self.unlocked = unlocked
        self.vaultPath = vaultPath
        self.idleSecondsLeft = idleSecondsLeft
        self.secondsLeft = secondsLeft
        self.pid = pid
    }

    /// The time left before the agent locks: the smaller of both limits.
    public var secondsUntilLock: UInt64 { min(idleSecondsLeft, secondsLeft) }
}
