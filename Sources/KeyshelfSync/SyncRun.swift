import Foundation
import KeyshelfCredentials
import KeyshelfVault

/// What one `keyshelf sync` did or, with `--dry-run`, would do.
public struct SyncOutcome: Sendable {
    /// The merge plan of the last attempt.
    public var plan: SyncPlan
    /// The commit made, if any (a fast-forward makes none).
    public var commit: String?
    /// Whether the branch was pushed (false: nothing to push, or a dry run).
    public var pushed: Bool
    /// Fetch–merge–push attempts (more than one when pushes were rejected).
    public var attempts: Int
}

extension SyncRepository {
    /// Attempts before giving up when the remote keeps moving.
    public static let maximumAttempts = 5

    /// `keyshelf sync`: fetch, merge record by record into this vault's
    /// `shared.vault` (through `session`, under the vault's lock, so the
    /// agent and the TUI see the result at their next read), commit with a
    /// message of counts only, push; a rejected push starts over, at most
    /// `maximumAttempts` times. Never runs `git merge` or `git rebase`, so it
    /// never leaves `MERGE_HEAD` or a half-done rebase; a kill at any moment
    /// leaves an atomic vault file and refs git updates atomically, which the
    /// next sync completes.
    /// - Parameters:
    ///   - dryRun: plan only: nothing written, committed or pushed
    ///     (the fetch still updates `refs/remotes/origin/main`).
    ///   - passwordChanged: called once with the fetched `shared.vault` and
    ///     its name when that copy is sealed under another salt (another
    ///     machine ran `keyshelf passwd`), to adopt the new master password
    ///     (`VaultSession.adoptPassword`); the copy is then opened again.
    ///     Nil, or a dry run: the copy is refused.
    /// - Throws: `SyncError` (foreign work in progress, rollback, git
    ///   failures), `VaultError` (a fetched copy that does not open), what
    ///   `passwordChanged` throws.
    public func sync(session: VaultSession, dryRun: Bool,
                     passwordChanged: ((_ copy: [UInt8], _ name: String) throws -> Void)? = nil) throws -> SyncOutcome {
        try checkNothingForeignInProgress()
        for attempt in 1...Self.maximumAttempts {
            let copies = SharedCopies(git: git, session: session)
            let previous = try git.resolve(Self.remoteRef)
            let remote = try fetch()
            let head = try git.resolve("HEAD")
            var fetched: (blob: String, bytes: [UInt8])?
            var theirs: [Item] = []
            var base: [Item] = []
            do {
                if let remote, let blob = try copies.blob(at: remote) {
                    let bytes = try git.blob(blob)
                    fetched = (blob, bytes)
                    theirs = try openTheirs(bytes, session, passwordChanged: dryRun ? nil : passwordChanged)
                    copies.remember(theirs, blob: blob)
                }
                if let head, let remote, let mergeBase = try? git.run(["merge-base", head, remote]).text, !mergeBase.isEmpty {
                    base = try copies.items(at: mergeBase)
                    try refuseRollback(theirs, older: base, what: "their common ancestor with this machine's history")
                }
                if let previous, let remote, previous != remote {
                    try refuseRollback(theirs, older: try copies.items(at: previous), what: "the state fetched by the last sync")
                }
            } catch {
                // A refused state (damaged, rolled back) does not become the next sync's baseline.
                if let previous { try git.run(["update-ref", Self.remoteRef, previous]) }
                throw error
            }
            // Read before the contents, so that the merge reuses the plan only if nothing changed since.
            let revision = session.revision
            let plan = SyncPlan(ours: try session.contents().shared, theirs: theirs, base: base)
            if dryRun { return SyncOutcome(plan: plan, commit: nil, pushed: false, attempts: attempt) }

            try merge(plan, theirs: theirs, fetched: fetched, planned: revision, into: session)
            let commit = try commitWorkFile(head: head, remote: remote, session: session, copies: copies)
            let branch = try git.resolve("refs/heads/\(Self.branch)")
            if branch == nil || branch == remote { return SyncOutcome(plan: plan, commit: commit, pushed: false, attempts: attempt) }
            if try push() { return SyncOutcome(plan: plan, commit: commit, pushed: true, attempts: attempt) }
        }
        throw SyncError("the remote changed during each of \(Self.maximumAttempts) attempts (another machine is syncing); run `keyshelf sync` again")
    }

    /// The records of the fetched `shared.vault`; when it is sealed under
    /// another salt, `passwordChanged` adopts its password first.
    private func openTheirs(_ bytes: [UInt8], _ session: VaultSession,
                            passwordChanged: ((_ copy: [UInt8], _ name: String) throws -> Void)?) throws -> [Item] {
        let name = "\(Self.remoteName)/\(Self.branch):\(Self.fileName)"
        do {
            return try session.openSharedCopy(bytes, name: name)
        } catch let error as VaultError where error.code == .changedOnDisk {
            guard let passwordChanged else { throw error }
            try passwordChanged(bytes, name)
            return try session.openSharedCopy(bytes, name: name)
        }
    }

    private func refuseRollback(_ theirs: [Item], older: [Item], what: String) throws {
        let regressions = RollbackCheck.regressions(newer: theirs, older: older)
        guard regressions.isEmpty else {
            throw SyncError("refused, a rollback: the remote's shared.vault is older than \(what) (\(regressions.joined(separator: "; "))): an old state was pushed again, or the remote was rolled back. Nothing was merged; check the remote (`git log \(Self.remoteName)/\(Self.branch)`) before syncing")
        }
    }

    /// Writes the merge into the vault file: the remote's own bytes when
    /// its copy already holds everything (both machines then track one blob),
    /// else the merged records sealed by the session. The plan's merge is
    /// written when the shared items are still those it was made from (the
    /// session's `revision` is still `planned`), else the merge is made again
    /// under the lock.
    private func merge(_ plan: SyncPlan, theirs: [Item], fetched: (blob: String, bytes: [UInt8])?, planned revision: Int,
                       into session: VaultSession) throws {
        if let fetched, Self.sameRecords(plan.merged, theirs) {
            if try git.run(["hash-object", "--", Self.fileName], check: false).text == fetched.blob { return }
            let adopted = try session.adoptSharedCopy(fetched.bytes, name: "\(Self.remoteName)/\(Self.branch):\(Self.fileName)") { current in
                Self.sameRecords(ItemMerge.merge(ours: current, theirs: theirs), theirs)
            }
            if adopted { return }
        }
        try session.modify(since: revision) { contents, unchanged in
            contents.shared = unchanged ? plan.merged : ItemMerge.merge(ours: contents.shared, theirs: theirs)
        }
    }

    /// Whether `a` and `b` hold the same records (matched by id, compared whole).
    static func sameRecords(_ a: [Item], _ b: [Item]) -> Bool {
        guard a.count == b.count else { return false }
        var position: [UUID: Int] = [:]
        position.reserveCapacity(b.count)
        for (i, item) in b.enumerated() { position[item.id] = i }
        return a.allSatisfy { item in position[item.id].map { b[$0] == item } ?? false }
    }

    /// Commits the work tree's `shared.vault` after a merge: on top of the
    /// remote when this machine had nothing unpushed, as a merge of both
    /// when both sides moved, not at all when nothing changed. The message
    /// carries counts only.
    /// - Returns: the new commit, or nil (nothing to commit, or a fast-forward).
    private func commitWorkFile(head: String?, remote: String?, session: VaultSession, copies: SharedCopies) throws -> String? {
        // A sealed file does not compress: zlib only cost time (a quarter of a second at 100k records).
        try git.run(["-c", "core.looseCompression=0", "add", "--", Self.fileName])
        let staged = try git.run(["rev-parse", ":\(Self.fileName)"]).text
        func blob(_ commit: String?) throws -> String? { try commit.flatMap { try copies.blob(at: $0) } }
        var parents: [String]
        switch (head, remote) {
        case (nil, nil):
            parents = []
        case let (head?, nil):
            if try blob(head) == staged { return nil }
            parents = [head]
        case let (nil, remote?):
            parents = [remote]
        case let (head?, remote?):
            if try git.isAncestor(remote, of: head) {
                if try blob(head) == staged { return nil }
                parents = [head]
            } else if try git.isAncestor(head, of: remote) {
                if try blob(remote) == staged {
                    try git.run(["update-ref", "refs/heads/\(Self.branch)", remote, head])
                    return nil
                }
                parents = [remote]
            } else {
                parents = [head, remote]
            }
        }
        let before = try parents.first.map { try copies.items(at: $0) } ?? []
        let after = try session.contents().shared
        let message = "keyshelf sync: " + RecordChanges.between(old: before, new: after).summary
        let commit = try commitIndex(parents: parents, message: message)
        try git.run(["update-ref", "refs/heads/\(Self.branch)", commit] + (head.map { [$0] } ?? []))
        return commit
    }
}
