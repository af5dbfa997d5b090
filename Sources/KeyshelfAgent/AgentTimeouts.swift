/// How long the agent keeps the keys: an idle limit (reset by every use)
/// and an absolute limit from the unlock, both in seconds (issue 6).
public struct AgentTimeouts: Equatable, Sendable {
    /// Seconds without a request after which the agent locks (default 900, 15 minutes).
    public var idleSeconds: UInt32
    /// Seconds after `keyshelf unlock` after which the agent locks whatever happens (default 28 800, 8 hours).
    public var maximumSeconds: UInt32

    /// The longest either limit may be: 7 days, in seconds.
    public static let ceilingSeconds: UInt32 = 7 * 24 * 3600

    /// 15 minutes idle, 8 hours absolute.
    public static let defaults = AgentTimeouts(idleSeconds: 15 * 60, maximumSeconds: 8 * 3600)

    public init(idleSeconds: UInt32, maximumSeconds: UInt32) {
        self.idleSeconds = idleSeconds
        self.maximumSeconds = maximumSeconds
    }

    /// The limits to use: explicit values (`unlock --idle`, `--max`), else
    /// `$KEYSHELF_AGENT_IDLE` / `$KEYSHELF_AGENT_MAX`, else `defaults`.
    /// - Throws: `AgentError.startFailed` naming the variable when an
    ///   environment value is not a whole number of seconds in 1...`ceilingSeconds`.
    public static func resolve(idle: UInt32?, maximum: UInt32?, environment: [String: String]) throws -> AgentTimeouts {
        func fromEnvironment(_ name: String) throws -> UInt32? {
            guard let text = environment[name], !text.isEmpty else { return nil }
            guard let value = UInt32(text), (1...ceilingSeconds).contains(value) else {
                throw AgentError(.startFailed, "$\(name) must be a number of seconds from 1 to \(ceilingSeconds), not '\(text)'")
            }
            return value
        }
        return AgentTimeouts(
            idleSeconds: try idle ?? fromEnvironment("KEYSHELF_AGENT_IDLE") ?? defaults.idleSeconds,
            maximumSeconds: try maximum ?? fromEnvironment("KEYSHELF_AGENT_MAX") ?? defaults.maximumSeconds)
    }
}
