import KeyshelfVault

/// The records of `shared.vault` in commits, each blob read and opened once
/// per run: a sync reads the remote's copy, the merge base's, the one the
/// last sync fetched and the new commit's parent's, and `sync log` each
/// commit and its parent, which are often one blob (at 100k records each
/// open took about 150 ms of a sync's own time). It keeps the records of
/// the last `kept` blobs only, since each holds a whole vault's.
final class SharedCopies {
    /// Blobs whose records are kept: the four copies one sync reads.
    static let kept = 4
    private let git: Git
    private let session: VaultSession
    private var blobs: [String: String?] = [:]
    private var records: [(blob: String, items: [Item])] = []

    init(git: Git, session: VaultSession) {
        self.git = git
        self.session = session
    }

    /// The id of `shared.vault`'s blob in `commit`; nil when the commit has none.
    func blob(at commit: String) throws -> String? {
        if let known = blobs[commit] { return known }
        let result = try git.run(["rev-parse", "--verify", "--quiet", "\(commit):\(SyncRepository.fileName)"], check: false)
        let id = result.status == 0 && !result.text.isEmpty ? result.text : nil
        blobs[commit] = id
        return id
    }

    /// The records of `shared.vault` in `commit` (none when it has no such file).
    /// - Throws: `SyncError` (git), `VaultError` from `VaultSession.openSharedCopy`.
    func items(at commit: String) throws -> [Item] {
        guard let id = try blob(at: commit) else { return [] }
        if let known = records.first(where: { $0.blob == id }) { return known.items }
        let items = try session.openSharedCopy(try git.blob(id), name: "\(commit.prefix(12)):\(SyncRepository.fileName)")
        remember(items, blob: id)
        return items
    }

    /// Records `items` as the contents of blob `id`, opened by the caller.
    func remember(_ items: [Item], blob id: String) {
        if records.count == Self.kept { records.removeFirst() }
        records.append((id, items))
    }
}
