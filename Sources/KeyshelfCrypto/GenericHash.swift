import CSodium

/// BLAKE2b (`crypto_generichash`). Unkeyed, a checksum that tells accidental
/// damage apart from a wrong key; keyed, a fingerprint of a secret that says
/// nothing about it to whoever lacks the key. It encrypts nothing; use `AEAD` for that.
public enum GenericHash {
    /// Smallest digest length in bytes (`crypto_generichash_BYTES_MIN`, 16).
    public static let minimumByteCount = Int(crypto_generichash_bytes_min())
    /// Largest digest length in bytes (`crypto_generichash_BYTES_MAX`, 64).
    public static let maximumByteCount = Int(crypto_generichash_bytes_max())

    /// Key length in bytes for a keyed hash (`crypto_generichash_KEYBYTES`, 32).
    public static let keyByteCount = Int(crypto_generichash_keybytes())

    /// The `byteCount`-byte BLAKE2b digest of `bytes`, keyed with `key` when given.
    /// - Precondition: `byteCount` within `minimumByteCount...maximumByteCount`;
    ///   `key`, when given, 16 to 64 bytes (`crypto_generichash_KEYBYTES_MIN…MAX`).
    public static func hash(_ bytes: UnsafeRawBufferPointer, key: SecureBytes? = nil, byteCount: Int = 32) -> [UInt8] {
        Sodium.ensureInitialized()
        precondition((minimumByteCount...maximumByteCount).contains(byteCount), "digest length out of range")
        if let key {
            precondition((Int(crypto_generichash_keybytes_min())...Int(crypto_generichash_keybytes_max())).contains(key.byteCount), "key length out of range")
        }
        var out = [UInt8](repeating: 0, count: byteCount)
        let rc = out.withUnsafeMutableBufferPointer { o in
            func digest(_ k: UnsafeRawBufferPointer?) -> Int32 {
                crypto_generichash(
                    o.baseAddress!, byteCount,
                    bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt64(bytes.count),
                    k?.baseAddress?.assumingMemoryBound(to: UInt8.self), k?.count ?? 0)
            }
            return key.map { $0.withUnsafeBytes { digest($0) } } ?? digest(nil)
        }
        precondition(rc == 0, "crypto_generichash failed")
        return out
    }
}
