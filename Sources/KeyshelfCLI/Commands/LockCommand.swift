import KeyshelfAgent

/// `keyshelf lock`: the vault's agent wipes its keys and exits; later
/// commands ask for the master password again (issue 6).
struct LockCommand: Command {
    static let spec = CommandSpec(
        name: "lock", summary: "lock: the agent wipes the keys and stops",
        shared: [.vault])

    var options: SharedOptions

    init(_ arguments: ParsedArguments) throws(UsageError) {
        options = try SharedOptions(arguments)
    }

    func run(_ context: CommandContext) throws -> ExitCode {
        let directory = VaultAccess.directory(options, context)
        let wasRunning = try AgentClient.lock(AgentLocation(vault: directory, environment: context.environment))
        context.note(wasRunning ? "locked \(directory.url.path)" : "\(directory.url.path) was not unlocked")
        return .success
    }
}
