import KeyshelfAgent
import KeyshelfCredentials

/// `keyshelf status [--json]`: whether the vault's agent is unlocked and the
/// time left before it locks. Exits 0 when unlocked and 9 (`.locked`) when
/// locked, so scripts can test it (`keyshelf status >/dev/null && …`).
struct StatusCommand: Command {
    static let spec = CommandSpec(
        name: "status", summary: "say whether the vault is unlocked, and for how long",
        // Its own --json: the shared one describes credentials.
        options: [
            .flag("--json", help: "print one JSON object: vault, unlocked, secondsLeft, idleSecondsLeft, maximumSecondsLeft"),
        ],
        shared: [.vault],
        discussion: """
            Prints "unlocked" or "locked". --json prints {"vault", "unlocked",
            "secondsLeft", "idleSecondsLeft", "maximumSecondsLeft"}: seconds until the
            agent locks, by either limit, by the idle limit, by the absolute limit.
            Exit status: 0 unlocked, 9 locked (also with --json).
            """)

    var options: SharedOptions

    init(_ arguments: ParsedArguments) throws(UsageError) {
        options = try SharedOptions(arguments)
    }

    func run(_ context: CommandContext) throws -> ExitCode {
        let directory = VaultAccess.directory(options, context)
        let location = AgentLocation(vault: directory, environment: context.environment)
        let status = try AgentClient.status(location)
        let unlocked = status?.unlocked ?? false
        if options.json {
            var json = JSONWriter()
            json.beginObject()
            json.field("vault", location.vaultPath)
            json.field("unlocked", unlocked)
            if let status, unlocked {
                json.field("secondsLeft", Int(status.secondsUntilLock))
                json.field("idleSecondsLeft", Int(status.idleSecondsLeft))
                json.field("maximumSecondsLeft", Int(status.secondsLeft))
            }
            json.endObject()
            context.standardOutput.write(String(decoding: json.bytes, as: UTF8.self) + "\n")
        } else if let status, unlocked {
            context.standardOutput.write("unlocked: \(InertText.make(location.vaultPath)) (locks in \(Self.duration(status.secondsUntilLock)): \(Self.duration(status.idleSecondsLeft)) left of the idle limit, \(Self.duration(status.secondsLeft)) of the absolute limit)\n")
        } else {
            context.standardOutput.write("locked: \(InertText.make(location.vaultPath))\n")
        }
        return unlocked ? .success : .locked
    }

    /// "2 h 05 min", "14 min 59 s", "9 s".
    static func duration(_ seconds: UInt64) -> String {
        let h = seconds / 3600, m = seconds % 3600 / 60, s = seconds % 60
        if h > 0 { return "\(h) h \(m < 10 ? "0" : "")\(m) min" }
        if m > 0 { return "\(m) min \(s) s" }
        return "\(s) s"
    }
}
