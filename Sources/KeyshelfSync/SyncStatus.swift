import Foundation
import KeyshelfCredentials
import KeyshelfVault

/// `keyshelf sync status`: what git knows, without the master password.
public struct SyncStatus: Sendable {
    public var remote: String
    /// Commits here not on the remote as last fetched, and the other way round.
    public var ahead: Int
    public var behind: Int
    /// `shared.vault` changed since the last sync commit (changes waiting for `keyshelf sync`).
    public var hasUnsyncedChanges: Bool
    /// The merge driver is registered in `.git/config`.
    public var driverRegistered: Bool
    /// The date of the last sync commit, if any.
    public var lastCommit: Date?
}

/// One commit of `keyshelf sync log`, decrypted in this process.
public struct SyncLogEntry: Sendable {
    public var commit: String
    public var date: Date
    /// The changes to the records against the commit's first parent.
    public var changes: RecordChanges
}

extension SyncRepository {
    /// The repository's sync state; reads nothing from the network.
    /// - Throws: `SyncError` when git fails.
    public func status() throws -> SyncStatus {
        let remote = try git.run(["remote", "get-url", Self.remoteName], check: false).text
        var ahead = 0, behind = 0
        if try git.resolve("HEAD") != nil, try git.resolve(Self.remoteRef) != nil {
            let counts = try git.run(["rev-list", "--left-right", "--count", "HEAD...\(Self.remoteRef)"]).text.split(separator: "\t")
            ahead = counts.first.flatMap { Int($0) } ?? 0
            behind = counts.dropFirst().first.flatMap { Int($0) } ?? 0
        }
        let committed = try git.run(["rev-parse", "--verify", "--quiet", "HEAD:\(Self.fileName)"], check: false).text
        let work = try git.run(["hash-object", "--", Self.fileName], check: false).text
        let time = try git.run(["log", "-1", "--format=%ct"], check: false).text
        return SyncStatus(remote: remote, ahead: ahead, behind: behind, hasUnsyncedChanges: committed != work,
                          driverRegistered: registeredDriver != nil, lastCommit: TimeInterval(time).map { Date(timeIntervalSince1970: $0) })
    }

    /// The history of `shared.vault`, newest first, each commit decrypted
    /// here and compared with its first parent record by record. Nothing
    /// decrypted reaches git or a file.
    /// - Parameter limit: most commits listed.
    /// - Throws: `SyncError`; `VaultError` for a commit whose file does not open.
    public func log(session: VaultSession, limit: Int = 50) throws -> [SyncLogEntry] {
        guard try git.resolve("HEAD") != nil else { return [] }
        let lines = try git.run(["log", "--max-count=\(limit)", "--format=%H %ct %P", "--", Self.fileName]).text.split(separator: "\n")
        let copies = SharedCopies(git: git, session: session)
        return try lines.map { line in
            let fields = line.split(separator: " ").map(String.init)
            let after = try copies.items(at: fields[0])
            let before = try fields.count > 2 ? copies.items(at: fields[2]) : []
            return SyncLogEntry(commit: fields[0], date: Date(timeIntervalSince1970: TimeInterval(fields[1]) ?? 0),
                                changes: RecordChanges.between(old: before, new: after))
        }
    }
}
