import KeyshelfCredentials

/// `keyshelf credential [--yes] get|store|erase`: a git credential helper
/// (git-credential(1)); DESIGN §4 describes which steps each operation runs.
struct CredentialCommand: Command {
    static let spec = CommandSpec(
        name: "credential", summary: "git credential helper (get, store, erase)",
        positionals: [.init(name: "OPERATION", help: "get, store or erase (git passes it)")],
        shared: [.yes, .vault, .passwordFD],
        discussion: """
            Use as: git config --global credential.helper '!keyshelf credential'
            (the '!' runs the command as written; without it git would look
            for a program named git-credential-keyshelf). An absolute path
            works too: git config --global credential.helper "/usr/local/bin/keyshelf credential"
            Standard output belongs to git; prompts and dialogs use the terminal only.
            Without a terminal and without a master password, get prints nothing.
            """)

    enum Operation: String { case get, store, erase }

    var operation: Operation?
    var options: SharedOptions

    init(_ arguments: ParsedArguments) throws(UsageError) {
        // git may add operations later; the protocol says to ignore unknown ones.
        operation = Operation(rawValue: arguments.positionals[0])
        options = try SharedOptions(arguments)
    }

    func run(_ context: CommandContext) throws -> ExitCode {
        let credential = try GitCredential.read(fd: 0)
        guard let operation, let url = credential.serverURL, let server = try? ServerName(parsing: url) else {
            // An operation or a host we cannot serve: git goes on without us.
            return .success
        }
        let directory = VaultAccess.directory(options, context)
        guard directory.exists else { return .success }
        let agentSession = try VaultAccess.agentSession(directory, options, context)
        let source = VaultAccess.passwordSource(options, context)
        if agentSession == nil && source == .terminal && context.terminal() == nil {
            // Nobody to unlock the vault: say nothing, so git can try its next helper.
            return .success
        }
        let session = try agentSession ?? VaultAccess.unlock(options, context, agent: false)
        defer { session.lock() }
        let shelf = try VaultAccess.shelf(session, yes: options.yes, context)
        switch operation {
        case .get:
            try get(server: server, credential: credential, shelf: shelf, context: context)
        case .store:
            try store(server: server, credential: credential, shelf: shelf, context: context)
        case .erase:
            try erase(server: server, credential: credential, shelf: shelf, context: context)
        }
        return .success
    }

    /// Login-flow steps 1–3 without saving (git calls `store` after a success).
    private func get(server: ServerName, credential: GitCredential, shelf: Keyshelf, context: CommandContext) throws {
        let prompt: any LoginPrompt = context.terminal().map(TerminalLoginPrompt.init) ?? NoLoginPrompt()
        let result: LoginResult
        do {
            result = try LoginFlow(prompt: prompt, saveOnSuccess: false).run(shelf, server: server, account: credential.username)
        } catch let error as KeychainError where error.status == .userCanceled {
            return
        }
        guard let password = result.record.password,
              var answer = GitCredential.answer(username: result.record.account, password: password) else {
            context.note("the saved credential for \(server.display) contains a newline or NUL, which git cannot carry; not sent")
            return
        }
        context.standardOutput.writeAndWipe(&answer)
    }

    /// Step 5: git reports a credential that worked; save it to both stores.
    private func store(server: ServerName, credential: GitCredential, shelf: Keyshelf, context: CommandContext) throws {
        guard let username = credential.username, !username.isEmpty, let password = credential.password else { return }
        let result = try shelf.save(server: server, account: username, password: password)
        if result.declined {
            context.note("kept the saved password for \(InertText.quoted(username)) on \(server.display): the update was declined")
        }
    }

    /// git reports a credential that was refused: delete it, after consent.
    private func erase(server: ServerName, credential: GitCredential, shelf: Keyshelf, context: CommandContext) throws {
        guard let username = credential.username, !username.isEmpty else { return }
        do {
            try shelf.delete(server: server, account: username)
        } catch let error as KeychainError where error.status == .itemNotFound {
            return
        } catch let error as KeychainError where error.status == .userCanceled {
            context.note("kept the saved password for \(InertText.quoted(username)) on \(server.display): deleting it was declined")
        }
    }
}
