import Foundation
import KeyshelfAgent
import KeyshelfCredentials
import KeyshelfCrypto
import KeyshelfSync
import KeyshelfVault

/// `keyshelf sync [setup URL | clone URL | status | log] [--dry-run]`: the
/// shared credentials synced between machines through git (docs/sync.md).
struct SyncCommand: Command {
    static let spec = CommandSpec(
        name: "sync", summary: "sync the shared credentials through git (setup URL, clone URL, status, log)",
        positionals: [
            .init(name: "ACTION", optional: true, help: "setup URL · clone URL · status · log; none: fetch, merge, commit, push"),
            .init(name: "URL", optional: true, help: "the git remote for setup and clone (any git URL; file:// for a bare repository)"),
        ],
        options: [.flag("--dry-run", help: "print the per-record plan (added, changed, removed, conflicts); write nothing")],
        shared: [.vault, .passwordFD],
        discussion: """
            The vault directory becomes a git work tree that tracks shared.vault only;
            local.vault, backups/ and locks are ignored. Records merge one by one: the
            later change wins, a losing password is kept in the record's history, a
            delete leaves a tombstone. Commit messages carry counts only. `setup` and
            `clone` register keyshelf's merge driver, so a plain `git pull` merges too.
            A fetched shared.vault that does not open, or that is older than one already
            seen (a rollback), is refused.
            """)

    enum Action: String { case sync, setup, clone, status, log }

    var action: Action
    var url: String?
    var dryRun: Bool
    var options: SharedOptions

    init(_ arguments: ParsedArguments) throws(UsageError) {
        options = try SharedOptions(arguments)
        dryRun = arguments.has("--dry-run")
        let word = arguments.positionals.first
        guard let parsed = word.map({ Action(rawValue: $0) }) ?? .sync, word != "sync" else {
            throw UsageError("unknown sync action '\(word ?? "")'; expected setup URL, clone URL, status or log")
        }
        action = parsed
        url = arguments.positionals.count > 1 ? arguments.positionals[1] : nil
        switch action {
        case .setup, .clone:
            if url == nil { throw UsageError("`keyshelf sync \(action.rawValue)` needs the remote's URL") }
        default:
            if url != nil { throw UsageError("unexpected argument '\(url!)'") }
        }
        if dryRun && action != .sync { throw UsageError("--dry-run applies to `keyshelf sync` itself") }
    }

    func run(_ context: CommandContext) throws -> ExitCode {
        let directory = VaultAccess.directory(options, context)
        let repository = try SyncRepository(directory: directory.url, environment: context.environment)
        switch action {
        case .setup:
            _ = try VaultAccess.existingDirectory(options, context)
            let session = try VaultAccess.opener(options, context).session()
            defer { session.lock() }
            try repository.setup(remote: url!, driver: MergeDriverCommand.registration, records: try session.contents().shared)
            context.note("set up sync of \(directory.url.path)/shared.vault with \(InertText.make(url!))")
        case .clone:
            try clone(repository, directory, context)
        case .status:
            try status(repository, context)
        case .log:
            try requireSetUp(repository)
            let session = try VaultAccess.opener(options, context).session()
            defer { session.lock() }
            for entry in try repository.log(session: session) {
                context.standardOutput.write("\(Self.format(entry.date))  \(entry.commit.prefix(10))  \(entry.changes.summary)\n")
                for change in entry.changes.changes { context.standardOutput.write("    \(change.kind.rawValue) \(change.name)\n") }
            }
        case .sync:
            try requireSetUp(repository)
            try repository.registerDriver(command: MergeDriverCommand.registration)
            // Before the password is asked: a merge in progress may have left a file that does not open.
            try repository.checkNothingForeignInProgress()
            let session = try VaultAccess.opener(options, context).session()
            defer { session.lock() }
            let outcome = try repository.sync(session: session, dryRun: dryRun) { copy, name in
                try Self.adoptNewPassword(copy, name: name, session: session, noAgent: options.noAgent, passwordFD: options.passwordFD, context)
            }
            report(outcome, context)
        }
        return .success
    }

    /// Another machine ran `keyshelf passwd`: the new master password is
    /// asked once (the next line of `--password-fd`, else
    /// `$KEYSHELF_NEW_PASSWORD_FILE`, else the terminal) and this machine's
    /// files are re-sealed under it (`VaultSession.adoptPassword`). Refused
    /// while the agent is unlocked: it holds the old keys. Also used by the
    /// merge driver (`passwordFD` nil).
    static func adoptNewPassword(_ copy: [UInt8], name: String, session: VaultSession, noAgent: Bool, passwordFD: Int32?,
                                 _ context: CommandContext) throws {
        let location = AgentLocation(vault: session.directory, environment: context.environment)
        if !noAgent, (try? AgentClient.status(location))??.unlocked == true {
            throw CLIError(.failure, "\(name) is sealed under a new master password (`keyshelf passwd` on another machine), and the agent holds the old keys; run `keyshelf sync --no-agent` with the current and then the new master password (or `keyshelf lock` first)")
        }
        let source = passwordFD.map { PasswordSource.fileDescriptor($0) } ?? .newMaster(fd: nil, environment: context.environment)
        let password: Secret
        do {
            password = try PasswordInput.read(from: source, terminal: context.terminal,
                                              prompt: "New master password (changed on another machine): ", kind: .newMaster)
        } catch {
            // PasswordInput names passwd's --new-password-fd, which sync does not have.
            let sources = passwordFD.map { "the line after the current password on descriptor \($0)" } ?? "$KEYSHELF_NEW_PASSWORD_FILE"
            throw CLIError(error.exitCode, "\(name) is sealed under a new master password (`keyshelf passwd` on another machine): give it on a terminal or in \(sources); nothing was changed (\(error.message))")
        }
        try session.adoptPassword(password, fromSharedCopy: copy, name: name)
        context.note("adopted the new master password set on another machine: local.vault and shared.vault are re-sealed under it")
    }

    private func requireSetUp(_ repository: SyncRepository) throws {
        guard repository.isSetUp else {
            throw CLIError(.failure, "\(repository.directory.path) is not synced yet; run `keyshelf sync setup URL` (the first machine) or `keyshelf sync clone URL` (another machine)")
        }
    }

    /// `clone`: the remote's shared.vault checked out, then adopted by a new
    /// local.vault under the master password that opens it.
    private func clone(_ repository: SyncRepository, _ directory: VaultDirectory, _ context: CommandContext) throws {
        if try directory.vaultExists() {
            throw VaultError(.alreadyExists, file: directory.url.path, reason: "a vault already exists here; clone into a new directory (--vault DIR)")
        }
        // A clone whose password was mistyped resumes here: the checkout is already done.
        if !repository.isSetUp { try repository.clone(remote: url!, driver: MergeDriverCommand.registration) }
        let password = try VaultAccess.masterPassword(options, context)
        let level = KDFLevel.resolve(nil, environment: context.environment)
        let session = VaultAccess.reportingNotes(
            try directory.create(password: password, limits: level.limits, keyDerivationConsent: TerminalKeyDerivationConsent.policy(context)),
            context)
        let count = try session.contents().shared.filter { !$0.isDeleted }.count
        let limits = session.limits
        session.lock()
        context.note("cloned \(InertText.make(url!)) into \(directory.url.path): \(count) shared credentials; local.vault created with the remote's Argon2id limits (\(limits))")
    }

    private func status(_ repository: SyncRepository, _ context: CommandContext) throws {
        try requireSetUp(repository)
        let status = try repository.status()
        var lines = ["remote: \(InertText.make(status.remote))"]
        lines.append("last sync commit: " + (status.lastCommit.map(Self.format) ?? "none"))
        lines.append("unsynced local changes: " + (status.hasUnsyncedChanges ? "yes (run `keyshelf sync`)" : "none"))
        lines.append("commits not pushed: \(status.ahead) · commits fetched but not merged: \(status.behind)")
        lines.append("merge driver for `git pull`: " + (status.driverRegistered ? "registered" : "missing (the next `keyshelf sync` registers it)"))
        context.standardOutput.write(lines.joined(separator: "\n") + "\n")
    }

    private func report(_ outcome: SyncOutcome, _ context: CommandContext) {
        let plan = outcome.plan
        var lines: [String] = []
        let verb = dryRun ? "would " : ""
        lines.append("\(verb)receive: \(plan.incoming.summary)")
        lines += plan.incoming.changes.map { "  \($0.kind.rawValue) \($0.name)" }
        lines.append("\(verb)send: \(plan.outgoing.summary)")
        lines += plan.outgoing.changes.map { "  \($0.kind.rawValue) \($0.name)" }
        if !plan.conflicts.isEmpty {
            lines.append("conflicts resolved by the merge rules:")
            lines += plan.conflicts.map { "  " + $0 }
        }
        if dryRun {
            lines.append("dry run: nothing written, committed or pushed")
        } else {
            lines.append(outcome.pushed ? "pushed" + (outcome.attempts > 1 ? " (after \(outcome.attempts) attempts)" : "") : "nothing to push")
        }
        context.standardOutput.write(lines.joined(separator: "\n") + "\n")
    }

    static func format(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd HH:mm 'UTC'"
        return formatter.string(from: date)
    }
}
