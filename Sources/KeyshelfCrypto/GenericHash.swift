import CSodium

/// BLAKE2b (`crypto_generichash`). Unkeyed: a checksum that tells accidental
/// damage apart from a wrong key; it authenticates nothing (use `AEAD` for
/// that). Keyed: a MAC, e.g. to compare secrets by a digest that is worthless
/// without the key.
public enum GenericHash {
    /// Smallest digest length in bytes (`crypto_generichash_BYTES_MIN`, 16).
    public static let minimumByteCount = Int(crypto_generichash_bytes_min())
    /// Largest digest length in bytes (`crypto_generichash_BYTES_MAX`, 64).
    public static let maximumByteCount = Int(crypto_generichash_bytes_max())

    /// The `byteCount`-byte BLAKE2b digest of `bytes`.
    /// - Precondition: `byteCount` within `minimumByteCount...maximumByteCount`.
    public static func hash(_ bytes: UnsafeRawBufferPointer, byteCount: Int = 32) -> [UInt8] {
        digest(bytes, key: UnsafeRawBufferPointer(start: nil, count: 0), byteCount: byteCount)
    }

    /// Recommended key length in bytes (`crypto_generichash_KEYBYTES`, 32).
    public static let keyByteCount = Int(crypto_generichash_keybytes())

    /// The `byteCount`-byte BLAKE2b digest of `bytes` keyed with `key`.
    /// - Precondition: `byteCount` within `minimumByteCount...maximumByteCount`;
    ///   `key` of `crypto_generichash_KEYBYTES_MIN...MAX` (16...64) bytes.
    public static func hash(_ bytes: UnsafeRawBufferPointer, key: SecureBytes, byteCount: Int = 32) -> [UInt8] {
        precondition((Int(crypto_generichash_keybytes_min())...Int(crypto_generichash_keybytes_max())).contains(key.byteCount),
                     "key length out of range")
        return key.withUnsafeBytes { digest(bytes, key: $0, byteCount: byteCount) }
    }

    private static func digest(_ bytes: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer, byteCount: Int) -> [UInt8] {
        Sodium.ensureInitialized()
        precondition((minimumByteCount...maximumByteCount).contains(byteCount), "digest length out of range")
        var out = [UInt8](repeating: 0, count: byteCount)
        let rc = out.withUnsafeMutableBufferPointer { o in
            crypto_generichash(
                o.baseAddress!, byteCount,
                bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt64(bytes.count),
                key.baseAddress?.assumingMemoryBound(to: UInt8.self), key.count)
        }
        precondition(rc == 0, "crypto_generichash failed")
        return out
    }
}
