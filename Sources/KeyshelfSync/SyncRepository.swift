import Foundation
import KeyshelfCredentials
import KeyshelfVault

/// The vault directory as a git work tree that syncs `shared.vault`
/// (docs/sync.md): set up, cloned, checked before each sync.
public struct SyncRepository: Sendable {
    /// The branch every machine syncs.
    public static let branch = "main"
    /// The one synced vault file.
    public static let fileName = "shared.vault"
    /// The remote's name in the repository.
    public static let remoteName = "origin"
    static let remoteRef = "refs/remotes/origin/main"

    /// `.gitignore`: only the synced file and these two are ever tracked;
    /// `local.vault`, `backups/`, the lock, temporaries and journals never.
    static let ignoreFile = """
        # keyshelf sync: only shared.vault is synced (docs/sync.md)
        /*
        !/shared.vault
        !/.gitattributes
        !/.gitignore

        """
    /// `.gitattributes`: keyshelf's merge driver, and no text diff of a sealed file.
    static let attributesFile = """
        shared.vault merge=keyshelf -diff

        """

    public let git: Git
    public var directory: URL { git.workTree }

    public init(directory: URL, environment: [String: String]) throws {
        git = try Git(workTree: directory, environment: environment)
    }

    /// Whether the vault directory is a git work tree (its own `.git`).
    public var isSetUp: Bool {
        FileManager.default.fileExists(atPath: directory.appendingPathComponent(".git").path)
    }

    /// Registers keyshelf's merge driver in `.git/config` (not versioned, so
    /// every clone registers it; `keyshelf sync` repairs it each run).
    /// - Parameter command: the driver's command line as git runs it through
    ///   its shell, e.g. `'/usr/bin/keyshelf' __merge-driver %O %A %B`.
    public func registerDriver(command: String) throws {
        let current = try git.run(["config", "--local", "--get", "merge.keyshelf.driver"], check: false).text
        if current != command { try git.run(["config", "--local", "merge.keyshelf.driver", command]) }
        let name = "keyshelf record-by-record merge of shared.vault"
        if try git.run(["config", "--local", "--get", "merge.keyshelf.name"], check: false).text != name {
            try git.run(["config", "--local", "merge.keyshelf.name", name])
        }
    }

    /// The driver command registered, if any.
    public var registeredDriver: String? {
        let text = (try? git.run(["config", "--local", "--get", "merge.keyshelf.driver"], check: false).text) ?? ""
        return text.isEmpty ? nil : text
    }

    /// `keyshelf sync setup URL`: makes the vault directory a work tree
    /// tracking `shared.vault`, `.gitattributes` and `.gitignore`, commits
    /// them, and pushes to `remote`, which must not hold a vault yet.
    /// - Parameter records: the items of `shared.vault` (for the commit message's count).
    /// - Throws: `SyncError` when already set up, when the remote holds a
    ///   vault already, or when git fails (nothing pushed then).
    public func setup(remote: String, driver: String, records: [Item]) throws {
        guard !isSetUp else {
            throw SyncError("\(directory.path) is already a git repository; run `keyshelf sync` to sync it, or `keyshelf sync status`")
        }
        guard FileManager.default.fileExists(atPath: directory.appendingPathComponent(Self.fileName).path) else {
            throw SyncError("\(directory.path)/shared.vault is missing; restore it from backups/ before setting up sync")
        }
        let existing = try git.run(["ls-remote", remote, "refs/heads/\(Self.branch)"], check: false)
        guard existing.status == 0 else { throw SyncError("cannot reach \(remote): \(existing.errorText)") }
        guard existing.text.isEmpty else {
            throw SyncError("\(remote) already holds a synced vault; on this machine use `keyshelf sync clone \(remote)` with a new vault directory (--vault DIR)")
        }
        try git.run(["init", "--quiet", "--initial-branch=\(Self.branch)"])
        try writePrivate(Self.ignoreFile, to: ".gitignore")
        try writePrivate(Self.attributesFile, to: ".gitattributes")
        try registerDriver(command: driver)
        try git.run(["remote", "add", Self.remoteName, remote])
        try git.run(["add", "--", ".gitignore", ".gitattributes", Self.fileName])
        let live = records.filter { !$0.isDeleted }.count
        let commit = try commitIndex(parents: [], message: "keyshelf sync: set up with \(live) credentials")
        try git.run(["update-ref", "refs/heads/\(Self.branch)", commit])
        try push()
    }

    /// `keyshelf sync clone URL`, before the vault is created: fetches the
    /// remote's branch into the (new or empty) vault directory and checks it
    /// out, so that `shared.vault` is there for `VaultDirectory.create` to adopt.
    /// - Throws: `SyncError` when the directory already holds a vault or a
    ///   repository, or the remote holds no vault.
    public func clone(remote: String, driver: String) throws {
        guard !isSetUp else { throw SyncError("\(directory.path) is already a git repository") }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        try git.run(["init", "--quiet", "--initial-branch=\(Self.branch)"])
        try registerDriver(command: driver)
        try git.run(["remote", "add", Self.remoteName, remote])
        guard try fetch() != nil else {
            throw SyncError("\(remote) holds no synced vault yet; run `keyshelf sync setup \(remote)` on a machine that has one")
        }
        try git.run(["checkout", "--quiet", "-B", Self.branch, Self.remoteRef])
    }

    /// Fetches the remote's branch into `refs/remotes/origin/main`.
    /// - Returns: the fetched commit; nil when the remote has no such branch yet.
    @discardableResult
    func fetch() throws -> String? {
        let result = try git.run(["fetch", "--quiet", "--no-tags", Self.remoteName, "+refs/heads/\(Self.branch):\(Self.remoteRef)"], check: false)
        if result.status != 0 {
            if result.errorText.contains("couldn't find remote ref") { return nil }
            throw SyncError("git fetch failed: \(result.errorText)")
        }
        return try git.resolve(Self.remoteRef)
    }

    /// Pushes the branch. - Returns: false when the remote refused it as not
    /// a fast-forward (someone pushed meanwhile: fetch, merge and retry).
    @discardableResult
    func push() throws -> Bool {
        let result = try git.run(["push", "--quiet", "--no-verify", Self.remoteName, "refs/heads/\(Self.branch):refs/heads/\(Self.branch)"], check: false)
        if result.status == 0 {
            try git.run(["update-ref", Self.remoteRef, "refs/heads/\(Self.branch)"])
            return true
        }
        let text = result.errorText
        if text.contains("[rejected]") || text.contains("non-fast-forward") || text.contains("fetch first") || text.contains("[remote rejected]") && text.contains("lock") {
            return false
        }
        throw SyncError("git push failed (the sync is committed here and will be pushed by the next `keyshelf sync`): \(text)")
    }

    /// Commits the index as a commit with `parents`, without hooks, an
    /// editor or a configured identity (keyshelf is the author when none is set).
    func commitIndex(parents: [String], message: String) throws -> String {
        let tree = try git.run(["write-tree"]).text
        var arguments = ["commit-tree", tree, "-m", message]
        for parent in parents { arguments += ["-p", parent] }
        if try git.run(["config", "user.email"], check: false).text.isEmpty {
            arguments = ["-c", "user.name=keyshelf", "-c", "user.email=keyshelf@localhost"] + arguments
        }
        return try git.run(arguments).text
    }

    private func writePrivate(_ text: String, to name: String) throws {
        let url = directory.appendingPathComponent(name)
        guard FileManager.default.createFile(atPath: url.path, contents: Data(text.utf8), attributes: [.posixPermissions: 0o600]) else {
            throw SyncError("cannot write \(url.path)")
        }
    }

    /// Refuses to sync over work keyshelf did not start: a merge, rebase or
    /// cherry-pick in progress, unmerged paths, or staged changes other than
    /// `shared.vault` as it is in the work tree (which a killed sync may leave).
    /// - Throws: `SyncError` saying what to finish or undo.
    public func checkNothingForeignInProgress() throws {
        let gitDirectory = directory.appendingPathComponent(".git")
        for (name, what, undo) in [("MERGE_HEAD", "a git merge", "git merge --abort"), ("rebase-merge", "a git rebase", "git rebase --abort"),
                                   ("rebase-apply", "a git rebase", "git rebase --abort"), ("CHERRY_PICK_HEAD", "a git cherry-pick", "git cherry-pick --abort")]
        where FileManager.default.fileExists(atPath: gitDirectory.appendingPathComponent(name).path) {
            throw SyncError("\(what) is in progress in \(directory.path); finish it, or undo it with `\(undo)`, then run `keyshelf sync` (it merges shared.vault itself)")
        }
        let unmerged = try git.run(["ls-files", "--unmerged"]).text
        guard unmerged.isEmpty else {
            throw SyncError("\(directory.path) has unmerged files; resolve or reset them (`git reset --merge`), then run `keyshelf sync`")
        }
        guard try git.resolve("HEAD") != nil else { return }
        let staged = try git.run(["diff", "--cached", "--name-only", "-z"]).output.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
        for path in staged {
            if path == Self.fileName,
               try git.run(["rev-parse", ":\(Self.fileName)"]).text == git.run(["hash-object", "--", Self.fileName]).text { continue }
            throw SyncError("\(directory.path) has staged changes keyshelf did not make (\(path)); commit them or unstage them (`git restore --staged \(path)`), then run `keyshelf sync`")
        }
    }
}
