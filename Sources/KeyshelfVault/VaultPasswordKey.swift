import KeyshelfCrypto

/// One Argon2id output of the master password together with the salt and
/// limits it was derived with: what a vault file's header needs to unwrap
/// its vault key without running Argon2id again.
///
/// Used by the agent (docs/agent-protocol.md): `keyshelf unlock` exports
/// these from a session opened with the password, the agent keeps them in
/// sodium memory, and later commands open the vault with
/// `VaultDirectory.unlock(passwordKeys:)`.
public struct VaultPasswordKey: Sendable {
    /// The 16-byte Argon2id salt (header bytes 32..<48).
    public let salt: [UInt8]
    /// The Argon2id limits (header bytes 16..<32).
    public let limits: PasswordHashLimits
    /// The 32-byte derived key.
    public let key: SecureBytes

    public init(salt: [UInt8], limits: PasswordHashLimits, key: SecureBytes) {
        self.salt = salt
        self.limits = limits
        self.key = key
    }

    func fits(_ header: VaultHeader) -> Bool {
        header.salt == salt && header.limits == limits
    }
}

extension VaultDirectory {
    /// Opens the vault with password keys exported by
    /// `VaultSession.passwordKeys()` instead of the password: no Argon2id
    /// runs. Otherwise the same checks as `unlock(password:)` (headers,
    /// whole-payload authentication); writes only as `recoverInterruptedPasswd`.
    /// - Throws: `VaultError` `.wrongPassword` when no key fits a file's salt
    ///   and limits or a key does not unwrap it (the master password was
    ///   changed since the keys were exported); otherwise the open errors of
    ///   `unlock(password:)`.
    public func unlock(passwordKeys: [VaultPasswordKey]) throws -> VaultSession {
        let (recovered, localFile, sharedFile) = try readFilesToUnlock()
        let local = try open(localFile, store: .local, passwordKeys: passwordKeys)
        let shared = try sharedFile.map { try open($0, store: .shared, passwordKeys: passwordKeys) }
        return try session(local: local, shared: shared, warnings: recovered)
    }

    private func open(_ file: (bytes: [UInt8], identity: FileIdentity), store: Store, passwordKeys: [VaultPasswordKey]) throws -> VaultSession.FileState {
        let path = path(of: store)
        let header = try VaultHeader.parse(file, expected: store, path: path)
        guard let passwordKey = passwordKeys.first(where: { $0.fits(header) })?.key else {
            throw VaultError(.wrongPassword, file: path, reason: "the unlocked keys do not fit this file (was the master password changed?)")
        }
        let vaultKey = try VaultFile.unwrapKey(header: header, passwordKey: passwordKey, path: path)
        let opened = try VaultFile.open(file.bytes, header: header, vaultKey: vaultKey, path: path)
        return VaultSession.FileState(header: header, passwordKey: passwordKey, vaultKey: vaultKey, identity: file.identity, opened: opened)
    }
}
