import Glibc
import KeyshelfAgent
import KeyshelfClipboard
import KeyshelfVault

/// `keyshelf unlock [--idle SECONDS] [--max SECONDS]`: asks the master
/// password once, checks it by opening the vault, and hands the password
/// keys to the vault's agent (started when none runs), so later commands
/// need neither the password nor Argon2id (issue 6, docs/agent-protocol.md).
struct UnlockCommand: Command {
    static let spec = CommandSpec(
        name: "unlock", summary: "unlock once: start the agent that keeps the vault open",
        options: [
            .value("--idle", valueName: "SECONDS",
                   help: "lock after this many seconds without use (default 900, or $KEYSHELF_AGENT_IDLE)"),
            .value("--max", valueName: "SECONDS",
                   help: "lock this many seconds after unlocking, used or not (default 28800, or $KEYSHELF_AGENT_MAX)"),
        ] + SharedOption.passwordFD.specs.filter { $0.key != "--no-agent" },
        shared: [.vault],
        discussion: """
            The agent keeps the keys in sodium_malloc memory (locked out of swap as far as
            RLIMIT_MEMLOCK allows; a warning says when not), answers only your own uid on a
            socket under $XDG_RUNTIME_DIR/keyshelf (else /tmp/keyshelf-UID), and locks
            itself at the first limit, on `keyshelf lock`, `keyshelf passwd`, SIGTERM, SIGHUP or SIGINT.
            Consent is still asked by each command. --no-agent makes a command ignore it.
            """)

    var options: SharedOptions
    var idle: UInt32?
    var maximum: UInt32?

    init(_ arguments: ParsedArguments) throws(UsageError) {
        options = try SharedOptions(arguments)
        let range = 1...Int(AgentTimeouts.ceilingSeconds)
        if let text = arguments.value("--idle") { idle = UInt32(try ArgumentParser.integer(text, option: "--idle", in: range)) }
        if let text = arguments.value("--max") { maximum = UInt32(try ArgumentParser.integer(text, option: "--max", in: range)) }
    }

    func run(_ context: CommandContext) throws -> ExitCode {
        let directory = try VaultAccess.existingDirectory(options, context)
        let timeouts = try AgentTimeouts.resolve(idle: idle, maximum: maximum, environment: context.environment)
        let location = AgentLocation(vault: directory, environment: context.environment)
        // An unsafe socket directory is reported before the password is asked.
        try location.checkDirectory(create: true)
        let session = try VaultAccess.opener(options, context, agent: false).session()
        let keys = try session.passwordKeys()
        session.lock()
        defer { keys.forEach { $0.key.wipe() } }
        let status = try AgentClient.unlock(location, keys: keys, timeouts: timeouts, executable: OwnExecutable.path)
        context.note("unlocked \(directory.url.path) (locks after \(StatusCommand.duration(UInt64(timeouts.idleSeconds))) idle, at the latest in \(StatusCommand.duration(status.secondsLeft)))")
        return .success
    }
}
