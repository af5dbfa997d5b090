import CSodium

/// libsodium's CSPRNG (`randombytes_*`).
public enum Random {
    /// A uniform integer in `0..<upperBound` without modulo bias (`randombytes_uniform`).
    public static func uniform(_ upperBound: UInt32) -> UInt32 {
        Sodium.ensureInitialized()
        return randombytes_uniform(upperBound)
    }

    /// `byteCount` random bytes (`randombytes_buf`), for salts and nonces.
    public static func bytes(_ byteCount: Int) -> [UInt8] {
        Sodium.ensureInitialized()
        var out = [UInt8](repeating: 0, count: byteCount)
        out.withUnsafeMutableBytes { randombytes_buf($0.baseAddress!, byteCount) }
        return out
    }

    /// A new `SecureBytes` of `byteCount` random bytes, for keys.
    public static func secureBytes(_ byteCount: Int) -> SecureBytes {
        Sodium.ensureInitialized()
        let out = SecureBytes(byteCount: byteCount)
        out.withUnsafeMutableBytes { randombytes_buf($0.baseAddress!, byteCount) }
        return out
    }
}
