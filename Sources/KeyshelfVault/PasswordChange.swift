import KeyshelfCrypto

/// The file work of `VaultSession.changePassword`.
enum PasswordChange {
    /// Re-wraps both vault keys under a key derived from `newPassword` with
    /// one new salt and `limits`, and replaces both files' headers together
    /// (`JointReplace`), copying each payload unchanged. A file that is
    /// absent only gets the new header in memory. `local` and `shared` change
    /// only when it succeeded.
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
        var states = [shared, local]
        var files: [JointReplace.File] = []
        for (index, store) in [Store.shared, .local].enumerated() {
            let file = states[index]
            let header = try VaultFile.makeHeader(
                version: file.header.version, store: store, limits: limits, salt: salt, vaultKey: file.vaultKey,
                passwordKey: passwordKey, chunkByteCount: file.header.chunkByteCount, payloadByteCount: file.header.payloadByteCount)
            states[index].header = header
            states[index].passwordKey = passwordKey
            guard let identity = file.identity else { continue }
            let path = directory + "/" + store.fileName
            guard let current = try FileSystem.read(path), current.identity == identity else {
                throw VaultError(.changedOnDisk, file: path, reason: "changed on disk while the password was being changed; nothing was changed — try again")
            }
            let payload = Array(current.bytes[VaultHeader.byteCount..<(VaultHeader.byteCount + Int(file.header.payloadByteCount))])
            files.append(JointReplace.File(name: store.fileName, header: header.serialized(), payload: payload, expected: identity))
        }
        let replaced = try JointReplace.replace(directory: directory, files: files)
        for (file, identity) in zip(files, replaced.identities) {
            let index = file.name == Store.shared.fileName ? 0 : 1
            states[index].identity = identity
            // The payload on disk is the one read; an unfinished append was not copied.
            states[index].hasUnfinishedAppend = false
        }
        shared = states[0]
        local = states[1]
        return replaced.warnings
    }
}
