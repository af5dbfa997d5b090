import Foundation
import KeyshelfCrypto

/// The file work of `VaultSession.changePassword`.
enum PasswordChange {
    /// Rotates the keys of both files (issue 14 item 5): one new salt and
    /// `limits` for a key derived from `newPassword`, a new random vault key
    /// for each file, and each file's current records (appendices and
    /// records added in memory folded in; an unfinished append, never
    /// committed, left out) sealed as one segment under its new key. Both
    /// files are replaced together (`JointReplace`). An old header spliced
    /// onto a new payload thus unwraps a key the new payload does not
    /// authenticate under. A file that is absent only gets the new header
    /// and key in memory. `local` and `shared` change only when it succeeded.
    /// - Returns: what failed after the commit.
    /// - Throws: `VaultError.changedOnDisk` when a file changed since it was
    ///   read; `.io` (both files then open with the old password, or the
    ///   error names the backup to restore).
    static func reseal(
        _ local: inout VaultSession.FileState, _ shared: inout VaultSession.FileState,
        to newPassword: Secret, limits: PasswordHashLimits, directory: String
    ) throws -> [VaultWarning] {
        let salt = Random.bytes(PasswordHash.saltByteCount)
        let passwordKey = try VaultFile.deriveKey(password: newPassword, salt: salt, limits: limits, path: directory)
        return try reseal(&local, &shared, under: VaultPasswordKey(salt: salt, limits: limits, key: passwordKey),
                          sharedKey: Random.secureBytes(VaultHeader.vaultKeyByteCount), directory: directory)
    }

    /// Re-seals both files as `reseal(_:_:to:limits:directory:)` does, with
    /// a password key already derived and `sharedKey` as `shared.vault`'s
    /// vault key (`local.vault` gets a new random one). In a synced vault
    /// directory (it has `.git`), the replaced password keys are kept in
    /// `RetiredKeys` under the new local key, so that a sync still opens the
    /// copies committed before the change; failing to write them is a warning.
    static func reseal(
        _ local: inout VaultSession.FileState, _ shared: inout VaultSession.FileState,
        under newKey: VaultPasswordKey, sharedKey: SecureBytes, directory: String
    ) throws -> [VaultWarning] {
        let (salt, limits, passwordKey) = (newKey.salt, newKey.limits, newKey.key)
        var retired = RetiredKeys.read(directory: directory, localKey: local.vaultKey)
        retired.retire(shared)
        retired.retire(local)
        var states = [shared, local]
        var files: [JointReplace.File] = []
        var payloadTags: [[UInt8]] = [[], []]
        for (index, store) in [Store.shared, .local].enumerated() {
            let vaultKey = index == 0 ? sharedKey : Random.secureBytes(VaultHeader.vaultKeyByteCount)
            let template = try VaultFile.makeHeader(
                store: store, limits: limits, salt: salt, vaultKey: vaultKey, passwordKey: passwordKey,
                chunkByteCount: states[index].header.chunkByteCount)
            let plaintext = states[index].wholePlaintext()
            // New keys: no segment of the old file can be kept.
            let layout = SegmentLayout(plaintext, chunkByteCount: Int(template.chunkByteCount))
            let header = try VaultFile.sealedHeader(for: layout, header: template, vaultKey: vaultKey, passwordKey: passwordKey)
            states[index].header = header
            states[index].passwordKey = passwordKey
            states[index].vaultKey = vaultKey
            guard let identity = states[index].identity else { continue }
            var payload: [UInt8] = []
            payload.reserveCapacity(Int(header.payloadByteCount))
            payloadTags[index] = try layout.seal(plaintext, header: header, vaultKey: vaultKey) { payload.append(contentsOf: $0) }
            files.append(JointReplace.File(name: store.fileName, header: header.serialized(), payload: payload, expected: identity))
        }
        let replaced = try JointReplace.replace(directory: directory, files: files)
        for (file, identity) in zip(files, replaced.identities) {
            let index = file.name == Store.shared.fileName ? 0 : 1
            states[index].identity = identity
            states[index].payloadTag = payloadTags[index]
            states[index].appendixCount = 0
            states[index].appendixByteCount = 0
            // The payload written holds the records read; an unfinished append was never committed.
            states[index].hasUnfinishedAppend = false
        }
        shared = states[0]
        local = states[1]
        var warnings = replaced.warnings
        retired.keys.removeAll { $0.fits(local.header) }
        if FileManager.default.fileExists(atPath: directory + "/.git") {
            do {
                try retired.write(directory: directory, localKey: local.vaultKey)
            } catch {
                warnings.append(VaultWarning(file: directory + "/" + RetiredKeys.fileName, reason: "the master password is changed, but the old keys could not be kept (\(error)): `keyshelf sync` cannot open the copies of shared.vault committed before the change"))
            }
        }
        return warnings
    }
}
