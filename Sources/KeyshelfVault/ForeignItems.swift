/// `…ThisDeviceOnly` items found in `shared.vault`, written there by
/// something else (another program, an older keyshelf, a synced copy):
/// they never belong in the file that syncs (DESIGN §2), and refusing every
/// later save because of one would lock the user out of all changes.
enum ForeignItems {
    /// Moves every `…ThisDeviceOnly` item of `contents.shared` to
    /// `contents.local` (dropped instead when the local store already has
    /// an item with its id), so the next save writes `shared.vault` without it.
    /// - Parameter file: the path of `shared.vault`, for the warning.
    /// - Returns: a warning naming the items, or nil when there were none.
    static func quarantine(_ contents: inout VaultContents, file: String) -> VaultWarning? {
        guard contents.shared.contains(inPlace: { $0.pointee.accessible.isThisDeviceOnly }) else { return nil }
        var moved: [String] = [], dropped: [String] = []
        let localIDs = Set(contents.local.map(\.id))
        contents.shared.removeAll { item in
            guard item.accessible.isThisDeviceOnly else { return false }
            let name = "\(item.server.isEmpty ? item.service : item.server) (account \(item.account), \(item.accessible))"
            if localIDs.contains(item.id) {
                dropped.append(name)
            } else {
                moved.append(name)
                contents.local.append(item)
            }
            return true
        }
        var parts: [String] = []
        if !moved.isEmpty { parts.append("moved to the local store: " + moved.joined(separator: ", ")) }
        if !dropped.isEmpty { parts.append("dropped, the local store has them already: " + dropped.joined(separator: ", ")) }
        return VaultWarning(file: file, reason: "held device-only items, which never belong in the synced file; \(parts.joined(separator: "; ")) (the previous file is in backups/)")
    }
}
