import Foundation
import KeyshelfAgent
import KeyshelfClipboard
import KeyshelfCredentials
import KeyshelfVault

/// `keyshelf credential [--yes] [--client APPID] get|store|erase`: a git credential helper
/// (git-credential(1)); DESIGN §4 describes which steps each operation runs.
/// With `--client`, only domains that client is associated with are served
/// (docs/associated-domains.md).
struct CredentialCommand: Command {
    static let spec = CommandSpec(
        name: "credential", summary: "git credential helper (get, store, erase)",
        positionals: [.init(name: "OPERATION", help: "get, store or erase (git passes it)", completion: .words("get", "store", "erase"))],
        options: [.value("--client", valueName: "APPID", help: "serve only domains this client is associated with (keyshelf associate git DOMAIN)")],
        shared: [.yes, .vault, .passwordFD],
        discussion: """
            Use as: git config --global credential.helper '!keyshelf credential'
            (the '!' runs the command as written; without it git would look
            for a program named git-credential-keyshelf). An absolute path
            works too: git config --global credential.helper "/usr/local/bin/keyshelf credential"
            Standard output belongs to git; prompts and dialogs use the terminal only.
            Without a terminal and without a master password, get prints nothing.
            Without a terminal, shared credentials are released only with --yes.
            With --client git ('!keyshelf credential --client git'), a host git is not associated with
            gets nothing (a note on standard error): get, store and erase leave it alone.
            """)

    enum Operation: String { case get, store, erase }

    var operation: Operation?
    var options: SharedOptions
    var client: AppIdentifier?

    init(_ arguments: ParsedArguments) throws(UsageError) {
        // git may add operations later; the protocol says to ignore unknown ones.
        operation = Operation(rawValue: arguments.positionals[0])
        options = try SharedOptions(arguments)
        client = try arguments.value("--client").map(AssociationArguments.app)
    }

    func run(_ context: CommandContext) throws -> ExitCode {
        if Self.terminalPromptsDisabled(context.environment) { context.disableTerminal() }
        let credential = try GitCredential.read(fd: 0)
        // An operation we do not know, or no host: git goes on without us.
        guard let operation, let server = try credential.server() else { return .success }
        let directory = VaultAccess.directory(options, context)
        guard directory.exists else { return .success }
        let opener = VaultOpener(directory: directory, options: options, context: context, viaAgent: !options.noAgent)
        let agentSession = try opener.agentSessionOnly()
        let source = VaultAccess.passwordSource(options, context)
        if agentSession == nil && source == .terminal && context.terminal() == nil {
            // Nobody to unlock the vault: say nothing, so git can try its next helper.
            return .success
        }
        // Checked before the master password is asked, as for every command.
        if agentSession == nil { _ = try VaultAccess.existingDirectory(options, context) }
        let session = try agentSession ?? opener.session()
        defer { session.lock() }
        let shelf = try VaultAccess.shelf(session, yes: options.yes, context)
        if let client, !Self.admits(client, server, shelf, context) { return .success }
        switch operation {
        case .get:
            try get(server: server, credential: credential, shelf: shelf, context: context)
            if agentSession == nil && source == .terminal && !options.noAgent {
                keepUnlockedForGitsNextStep(session, directory, context)
            }
        case .store:
            try store(server: server, credential: credential, shelf: shelf, context: context)
        case .erase:
            try erase(server: server, credential: credential, shelf: shelf, context: context)
        }
        return .success
    }

    /// How long the keys stay with an agent after a `get` that asked the
    /// master password on the terminal: long enough for the `store` or
    /// `erase` git runs next, short like git-credential-cache's own window.
    static let nextStepWindow = AgentTimeouts(idleSeconds: 60, maximumSeconds: 120)

    /// Hands the password keys to a short-lived agent (`nextStepWindow`), so
    /// one git command (`get`, then `store` or `erase`) asks the master
    /// password at most once (issue 11 item 13). When no agent can start,
    /// git's next step asks again; that is noted, not an error.
    private func keepUnlockedForGitsNextStep(_ session: VaultSession, _ directory: VaultDirectory, _ context: CommandContext) {
        do {
            let location = AgentLocation(vault: directory, environment: context.environment)
            try location.checkDirectory(create: true)
            let keys = try session.passwordKeys()
            defer { keys.forEach { $0.key.wipe() } }
            _ = try AgentClient.unlock(location, keys: keys, timeouts: Self.nextStepWindow, executable: OwnExecutable.path)
        } catch let error as AgentError {
            context.note("git's next step will ask the master password again: \(error.reason)")
        } catch {
            context.note("git's next step will ask the master password again: \(error)")
        }
    }

    /// Login-flow steps 1–3 without saving (git calls `store` after a success).
    /// Without a terminal there is no step 3: steps 1–2 are `Keyshelf.get`,
    /// whose error names a release declined for want of a terminal.
    private func get(server: ServerName, credential: GitCredential, shelf: Keyshelf, context: CommandContext) throws {
        let record: CredentialRecord
        do {
            if let terminal = context.terminal() {
                // Signing in to an existing account: no generated password is offered.
                // git needs a password: Sign in with Apple accounts are passed over.
                record = try LoginFlow(prompt: TerminalLoginPrompt(terminal: terminal, offersSuggestion: false), saveOnSuccess: false,
                                       passwordsOnly: true)
                    .run(shelf, server: server, account: credential.username).record
            } else {
                record = try shelf.get(server: server, account: credential.username)
            }
        } catch let error as KeychainError where error.status == .itemNotFound {
            return
        } catch let error as KeychainError where error.status == .userCanceled {
            // git itself only says "terminal prompts disabled"; stdout stays git's.
            if context.unattendedConsent.declinedAny { context.note(error.reason + Self.yesHint) }
            return
        } catch let error as KeychainError where error.status == .param {
            // Several accounts and no username= to choose one: git tries its next helper or asks.
            context.note(error.reason)
            return
        }
        guard let password = record.password,
              var answer = GitCredential.answer(username: record.account, password: password, oauth: record.oauth, now: Date()) else {
            context.note("the saved credential for \(server.qualified) contains a newline, carriage return or NUL, which git cannot carry; not sent")
            return
        }
        context.standardOutput.writeAndWipe(&answer)
    }

    /// Step 5: git reports a credential that worked; save it to both stores.
    private func store(server: ServerName, credential: GitCredential, shelf: Keyshelf, context: CommandContext) throws {
        guard let username = credential.username, !username.isEmpty, let password = credential.password else { return }
        let result = try shelf.save(server: server, account: username, password: password, oauth: credential.oauth)
        if result.declined {
            context.note("kept the saved password for \(InertText.quoted(username)) on \(server.qualified): the update was declined"
                         + (context.unattendedConsent.declinedAny ? Self.yesHint : ""))
        }
    }

    /// Added to a consent decline that happened because nobody could be asked.
    static let yesHint = "; with no terminal to ask, use 'keyshelf credential --yes' as the helper"

    /// git reports a credential that was refused: delete what matches
    /// (`Keyshelf.erase`: the given password only, every account without
    /// `username=`), after consent.
    private func erase(server: ServerName, credential: GitCredential, shelf: Keyshelf, context: CommandContext) throws {
        let username = credential.username.flatMap { $0.isEmpty ? nil : $0 }
        let result = try shelf.erase(server: server, account: username, password: credential.password)
        for account in result.declined {
            context.note("kept the saved password for \(InertText.quoted(account)) on \(server.qualified): deleting it was declined"
                         + (context.unattendedConsent.declinedAny ? Self.yesHint : ""))
        }
    }

    /// With `--client`: whether `client` may have `server` (`AssociationGate`);
    /// if so, every release consent now names it (`ClientConsent`). A refusal
    /// is noted on standard error and git gets nothing, as for an unknown host.
    static func admits(_ client: AppIdentifier, _ server: ServerName, _ shelf: Keyshelf, _ context: CommandContext) -> Bool {
        do {
            _ = try shelf.gate(for: client).check(server)
        } catch {
            context.note(error.reason)
            return false
        }
        shelf.consent = ClientConsent(client: client, base: shelf.consent)
        return true
    }

    /// git's `GIT_TERMINAL_PROMPT` read as git reads a boolean: "0", "false",
    /// "no" or "off" turns every prompt off.
    static func terminalPromptsDisabled(_ environment: [String: String]) -> Bool {
        guard let value = environment["GIT_TERMINAL_PROMPT"]?.lowercased() else { return false }
        return ["0", "false", "no", "off"].contains(value)
    }
}
