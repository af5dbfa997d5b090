import CLibCrypto

/// SHA-1 from OpenSSL's libcrypto (`EVP_Digest` with `EVP_sha1`), only for
/// looking passwords up in the Have I Been Pwned lists, which are keyed by
/// SHA-1. Not for anything that needs collision resistance.
public enum SHA1 {
    /// Digest length in bytes (20).
    public static let byteCount = 20

    /// The SHA-1 digest of `bytes`. The corresponding C function is `EVP_Digest`.
    public static func digest(_ bytes: UnsafeRawBufferPointer) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: byteCount)
        var length: UInt32 = 0
        let ok = out.withUnsafeMutableBufferPointer { o in
            EVP_Digest(bytes.baseAddress, bytes.count, o.baseAddress, &length, EVP_sha1(), nil)
        }
        precondition(ok == 1 && length == UInt32(byteCount), "EVP_Digest(SHA-1) failed")
        return out
    }
}
