import KeyshelfAgent
import KeyshelfVault

/// `keyshelf passwd`: changes the master password and rotates the vault keys
/// (both files re-sealed), as the `changeMasterPassword` operation: in the
/// unlocked agent, which keeps serving with the new keys, else here.
struct PasswdCommand: Command {
    static let spec = CommandSpec(
        name: "passwd", summary: "change the master password",
        options: [
            .value("--new-password-fd", valueName: "N",
                   help: "read the new master password from descriptor N (else $KEYSHELF_NEW_PASSWORD_FILE, else the terminal, twice)"),
        ],
        shared: [.vault, .passwordFD],
        discussion: """
            A new master password shorter than 12 characters is warned about:
            on the terminal it must be confirmed (else it is asked again); from
            --new-password-fd or $KEYSHELF_NEW_PASSWORD_FILE the warning goes to
            standard error. The current password is always asked; an unlocked
            agent checks it, makes the change and stays unlocked with the new
            password (without one, or with --no-agent, the change is made here
            and an agent still running is locked).
            """)

    var options: SharedOptions
    var newPasswordFD: Int32?

    init(_ arguments: ParsedArguments) throws(UsageError) {
        options = try SharedOptions(arguments)
        if let text = arguments.value("--new-password-fd") {
            newPasswordFD = Int32(try ArgumentParser.integer(text, option: "--new-password-fd", in: 0...65_535))
        }
    }

    func run(_ context: CommandContext) throws -> ExitCode {
        let opener = try VaultAccess.opener(options, context)
        // The current password is always asked, agent or not; the agent checks it too.
        let current = try opener.readMasterPassword(keepingAgent: true)
        return try opener.keepingSession {
            try opener.openHereUnlessAgentIsUnlocked()
            let newPassword = try NewMasterPassword.read(
                from: .newMaster(fd: newPasswordFD, environment: context.environment), terminal: context.terminal,
                prompt: "New master password: ", confirmPrompt: "Repeat the new master password: ", kind: .newMaster,
                warn: context.note)
            try opener.answer(.changeMasterPassword(current: current, new: newPassword), yes: false, value: \.changedMasterPassword)
            guard !opener.agentAnswered else {
                context.note("changed the master password; the agent stays unlocked with the new one")
                return .success
            }
            // An agent that did not make the change holds keys that no longer fit.
            let agentWasRunning = AgentClient.lock(for: opener.directory, environment: context.environment)
            context.note("changed the master password" + (agentWasRunning ? "; the agent is locked (run `keyshelf unlock` again)" : ""))
            return .success
        }
    }
}
