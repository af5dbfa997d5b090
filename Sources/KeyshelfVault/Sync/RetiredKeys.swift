import Foundation
import KeyshelfCrypto

/// The password keys of master passwords this vault had before its latest
/// key rotation (`passwd`, or a new password adopted from another machine by
/// `keyshelf sync`), kept so that a sync can still open the copies of
/// `shared.vault` committed before the change (the remote's tip and the
/// merge base). File `retired.keys` in the vault directory (never synced:
/// `.gitignore` keeps everything but `shared.vault` out), mode 0600:
/// a 24-byte nonce, then XChaCha20-Poly1305 under `local.vault`'s current
/// vault key (associated data `keyshelf retired keys 1`) of entries of
/// 64 bytes: salt (16), opslimit and memlimit (u64 little-endian each), the
/// Argon2id output (32). Only the current master password opens it
/// (docs/vault-format.md, "What an old password still opens").
struct RetiredKeys {
    static let fileName = "retired.keys"
    static let maximumCount = 16
    private static let associatedData = Array("keyshelf retired keys 1".utf8)
    private static let entryByteCount = PasswordHash.saltByteCount + 16 + VaultHeader.vaultKeyByteCount

    var keys: [VaultPasswordKey] = []

    /// The keys sealed in `directory`'s file under `localKey`; none when the
    /// file is absent, or does not open with that key (left by a rotation
    /// that failed, or of another vault).
    static func read(directory: String, localKey: SecureBytes) -> RetiredKeys {
        let url = URL(fileURLWithPath: directory + "/" + fileName)
        guard let data = try? Data(contentsOf: url), data.count > AEAD.nonceByteCount else { return RetiredKeys() }
        let bytes = [UInt8](data)
        guard let plain = try? AEAD.open(Array(bytes[AEAD.nonceByteCount...]), key: localKey,
                                         nonce: Array(bytes[..<AEAD.nonceByteCount]), associatedData: associatedData),
              plain.byteCount % entryByteCount == 0 else { return RetiredKeys() }
        var out = RetiredKeys()
        plain.withUnsafeBytes { raw in
            for start in stride(from: 0, to: raw.count, by: entryByteCount) {
                let salt = Array(raw[start..<(start + PasswordHash.saltByteCount)])
                let limits = PasswordHashLimits(
                    opslimit: raw.loadLittleEndian(UInt64.self, at: start + PasswordHash.saltByteCount),
                    memlimitBytes: raw.loadLittleEndian(UInt64.self, at: start + PasswordHash.saltByteCount + 8))
                let key = SecureBytes(copying: UnsafeRawBufferPointer(rebasing: raw[(start + entryByteCount - VaultHeader.vaultKeyByteCount)..<(start + entryByteCount)]))
                out.keys.append(VaultPasswordKey(salt: salt, limits: limits, key: key))
            }
        }
        return out
    }

    /// The key for a header with this salt and limits, if retired.
    func key(for header: VaultHeader) -> SecureBytes? {
        keys.first { $0.fits(header) }?.key
    }

    /// Adds the key of `file` unless one for its salt and limits is there;
    /// the oldest are dropped beyond `maximumCount`.
    mutating func retire(_ file: VaultSession.FileState) {
        guard !keys.contains(where: { $0.fits(file.header) }) else { return }
        keys.insert(VaultPasswordKey(salt: file.header.salt, limits: file.header.limits, key: file.passwordKey), at: 0)
        if keys.count > Self.maximumCount { keys.removeLast(keys.count - Self.maximumCount) }
    }

    /// Seals the keys under `localKey` and replaces the file (a temporary
    /// file renamed over it).
    /// - Throws: `VaultError.io`.
    func write(directory: String, localKey: SecureBytes) throws {
        let plain = SecureBytes(byteCount: keys.count * Self.entryByteCount)
        plain.withUnsafeMutableBytes { raw in
            for (index, entry) in keys.enumerated() {
                var bytes = entry.salt
                bytes.appendLittleEndian(entry.limits.opslimit)
                bytes.appendLittleEndian(entry.limits.memlimitBytes)
                bytes.withUnsafeBytes { raw.baseAddress!.advanced(by: index * Self.entryByteCount).copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
                entry.key.withUnsafeBytes { key in
                    raw.baseAddress!.advanced(by: index * Self.entryByteCount + bytes.count).copyMemory(from: key.baseAddress!, byteCount: key.count)
                }
            }
        }
        let nonce = Random.bytes(AEAD.nonceByteCount)
        let sealed = nonce + (try AEAD.seal(plain, key: localKey, nonce: nonce, associatedData: Self.associatedData))
        let path = directory + "/" + Self.fileName
        let temporary = path + ".\(getpid()).tmp"
        guard FileManager.default.createFile(atPath: temporary, contents: Data(sealed), attributes: [.posixPermissions: 0o600]),
              rename(temporary, path) == 0 else {
            try? FileManager.default.removeItem(atPath: temporary)
            throw VaultError(.io, file: path, reason: "cannot be written")
        }
    }
}
