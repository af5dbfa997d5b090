import KeyshelfCrypto

/// Sealing and opening one vault file (header + secretstream payload).
/// Pure functions over bytes; the session does the I/O.
enum VaultFile {
    /// Argon2id over `password`; `limits` must already have passed `VaultHeader.checkCeilings`.
    /// - Throws: `.io` when Argon2id cannot run (usually memory).
    static func deriveKey(password: Secret, salt: [UInt8], limits: PasswordHashLimits, path: String) throws -> SecureBytes {
        do {
            return try PasswordHash.deriveKey(password: password, salt: salt, limits: limits)
        } catch {
            throw VaultError(.io, file: path, reason: "cannot run Argon2id with \(limits) (not enough memory?)")
        }
    }

    /// Unwraps the vault key with the password-derived key.
    /// - Throws: `.wrongPassword` when the key does not authenticate (the header
    ///   checksum already ruled out damage).
    static func unwrapKey(header: VaultHeader, passwordKey: SecureBytes, path: String) throws -> SecureBytes {
        do {
            return try AEAD.open(header.wrappedKey, key: passwordKey, nonce: header.nonce, associatedData: header.keyWrapAssociatedData())
        } catch {
            throw VaultError(.wrongPassword, file: path, reason: "wrong master password")
        }
    }

    /// A header for `store` with a fresh nonce, wrapping `vaultKey` under `passwordKey`.
    static func makeHeader(
        store: Store, limits: PasswordHashLimits, salt: [UInt8], vaultKey: SecureBytes, passwordKey: SecureBytes,
        chunkByteCount: UInt32 = VaultHeader.defaultChunkByteCount, payloadByteCount: UInt64 = 0
    ) throws -> VaultHeader {
        var header = VaultHeader(
            store: store, chunkByteCount: chunkByteCount, limits: limits, salt: salt,
            nonce: Random.bytes(AEAD.nonceByteCount),
            wrappedKey: [UInt8](repeating: 0, count: VaultHeader.vaultKeyByteCount + AEAD.tagByteCount),
            payloadByteCount: payloadByteCount)
        header.wrappedKey = try AEAD.seal(vaultKey, key: passwordKey, nonce: header.nonce, associatedData: header.keyWrapAssociatedData())
        return header
    }

    /// Authenticates the whole payload, then decodes it. Nothing is returned
    /// unless every chunk verifies and the last is FINAL.
    /// - Returns: the items and the plaintext their passwords are slices of.
    /// - Throws: `.damaged`, `.truncated`.
    static func openPayload(_ file: [UInt8], header: VaultHeader, vaultKey: SecureBytes, path: String) throws -> (items: [Item], plaintext: SecureBytes) {
        let plaintext: SecureBytes
        do {
            plaintext = try file.withUnsafeBytes { all in
                try SecretStream.open(
                    UnsafeRawBufferPointer(rebasing: all[VaultHeader.byteCount...]), key: vaultKey,
                    chunkByteCount: Int(header.chunkByteCount), associatedData: header.payloadAssociatedData())
            }
        } catch CryptoError.truncatedStream {
            throw VaultError(.truncated, file: path, reason: "is truncated (its encrypted payload lacks its final chunk); restore it from backups/ or your sync copy")
        } catch {
            throw VaultError(.damaged, file: path, reason: "is damaged (its encrypted payload does not authenticate); restore it from backups/ or your sync copy")
        }
        do {
            return (try RecordCodec.decode(plaintext), plaintext)
        } catch let error as RecordCodec.DecodeError {
            throw VaultError(.damaged, file: path, reason: "is damaged (\(error.reason)); restore it from backups/ or your sync copy")
        }
    }

    /// `header` with its payload length set for sealing `plaintext`.
    static func sealedHeader(for plaintext: SecureBytes, header: VaultHeader) -> VaultHeader {
        var out = header
        out.payloadByteCount = UInt64(SecretStream.sealedByteCount(plaintextByteCount: plaintext.byteCount, chunkByteCount: Int(header.chunkByteCount)))
        return out
    }

    /// Seals an encoded payload piece by piece into `output` (the stream
    /// header, then each chunk; `sealedHeader(for:header:).payloadByteCount` bytes in all).
    static func seal(_ plaintext: SecureBytes, header: VaultHeader, vaultKey: SecureBytes, output: (UnsafeRawBufferPointer) throws -> Void) throws {
        try SecretStream.seal(plaintext, key: vaultKey, chunkByteCount: Int(header.chunkByteCount), associatedData: header.payloadAssociatedData(), output: output)
    }
}
