import CSodium

/// BLAKE2b (`crypto_generichash`), unkeyed: a checksum that tells accidental
/// damage apart from a wrong key. It authenticates nothing; use `AEAD` for that.
public enum GenericHash {
    /// Smallest digest length in bytes (`crypto_generichash_BYTES_MIN`, 16).
    public static let minimumByteCount = Int(crypto_generichash_bytes_min())
    /// Largest digest length in bytes (`crypto_generichash_BYTES_MAX`, 64).
    public static let maximumByteCount = Int(crypto_generichash_bytes_max())

    /// The `byteCount`-byte BLAKE2b digest of `bytes`.
    /// - Precondition: `byteCount` within `minimumByteCount...maximumByteCount`.
    public static func hash(_ bytes: UnsafeRawBufferPointer, byteCount: Int = 32) -> [UInt8] {
        Sodium.ensureInitialized()
        precondition((minimumByteCount...maximumByteCount).contains(byteCount), "digest length out of range")
        var out = [UInt8](repeating: 0, count: byteCount)
        let rc = out.withUnsafeMutableBufferPointer { o in
            crypto_generichash(
                o.baseAddress!, byteCount,
                bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt64(bytes.count),
                nil, 0)
        }
        precondition(rc == 0, "crypto_generichash failed")
        return out
    }
}
