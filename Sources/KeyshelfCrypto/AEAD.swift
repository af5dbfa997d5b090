import CSodium

/// XChaCha20-Poly1305 (IETF) authenticated encryption
/// (`crypto_aead_xchacha20poly1305_ietf_*`), used to wrap keys.
///
/// Sealed layout: ciphertext (same length as the message) followed by the
/// 16-byte tag; the 24-byte nonce is stored by the caller.
public enum AEAD {
    /// Key length in bytes (32).
    public static let keyByteCount = Int(crypto_aead_xchacha20poly1305_ietf_keybytes())
    /// Nonce length in bytes (24).
    public static let nonceByteCount = Int(crypto_aead_xchacha20poly1305_ietf_npubbytes())
    /// Tag length in bytes (16).
    public static let tagByteCount = Int(crypto_aead_xchacha20poly1305_ietf_abytes())

    /// Encrypts `message` with `key` and `nonce`, authenticating `associatedData`.
    /// - Returns: `message.byteCount + tagByteCount` bytes.
    /// - Throws: `CryptoError.invalidLength` for a wrong key or nonce size.
    public static func seal(_ message: SecureBytes, key: SecureBytes, nonce: [UInt8], associatedData: [UInt8]) throws -> [UInt8] {
        Sodium.ensureInitialized()
        try check(key: key, nonce: nonce)
        var out = [UInt8](repeating: 0, count: message.byteCount + tagByteCount)
        var outLen: UInt64 = 0
        let rc = out.withUnsafeMutableBufferPointer { o in
            message.withUnsafeBytes { m in
                key.withUnsafeBytes { k in
                    crypto_aead_xchacha20poly1305_ietf_encrypt(
                        o.baseAddress!, &outLen,
                        m.baseAddress!.assumingMemoryBound(to: UInt8.self), UInt64(m.count),
                        associatedData, UInt64(associatedData.count),
                        nil, nonce, k.baseAddress!.assumingMemoryBound(to: UInt8.self))
                }
            }
        }
        precondition(rc == 0 && Int(outLen) == out.count, "xchacha20poly1305 encrypt failed")
        return out
    }

    /// Decrypts and verifies `sealed` (ciphertext + tag).
    /// - Returns: the message in secure memory.
    /// - Throws: `CryptoError.authenticationFailed` when the tag does not verify
    ///   (wrong key, tampered data or associated data); `CryptoError.invalidLength`.
    public static func open(_ sealed: [UInt8], key: SecureBytes, nonce: [UInt8], associatedData: [UInt8]) throws -> SecureBytes {
        Sodium.ensureInitialized()
        try check(key: key, nonce: nonce)
        guard sealed.count >= tagByteCount else { throw CryptoError.authenticationFailed }
        let out = SecureBytes(byteCount: sealed.count - tagByteCount)
        var outLen: UInt64 = 0
        let rc = out.withUnsafeMutableBytes { o in
            key.withUnsafeBytes { k in
                crypto_aead_xchacha20poly1305_ietf_decrypt(
                    o.baseAddress!.assumingMemoryBound(to: UInt8.self), &outLen, nil,
                    sealed, UInt64(sealed.count),
                    associatedData, UInt64(associatedData.count),
                    nonce, k.baseAddress!.assumingMemoryBound(to: UInt8.self))
            }
        }
        guard rc == 0 else { throw CryptoError.authenticationFailed }
        return out
    }

    private static func check(key: SecureBytes, nonce: [UInt8]) throws {
        guard key.byteCount == keyByteCount else {
            throw CryptoError.invalidLength(what: "key", expectedByteCount: keyByteCount, actualByteCount: key.byteCount)
        }
        guard nonce.count == nonceByteCount else {
            throw CryptoError.invalidLength(what: "nonce", expectedByteCount: nonceByteCount, actualByteCount: nonce.count)
        }
    }
}
