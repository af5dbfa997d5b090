import KeyshelfCrypto

/// The Shared Web Credentials password generator (DESIGN §3, `generatePassword()`).
///
/// 12 characters as `xxx-xxx-xxx-xxx` (15 bytes), drawn from `lowercase`,
/// `uppercase` and `digits` (53 characters), with at least one character of
/// each set. Every character is a `Random.uniform` draw (libsodium's
/// `randombytes_uniform`, no modulo bias) and whole draws that miss a set are
/// rejected, so the result is uniform over all valid strings: about 68.4 bits.
/// No set is ever forced into a position.
public enum PasswordGenerator {
    /// Lower-case letters without the look-alikes i, j, l, z.
    public static let lowercase = Array("abcdefghkmnopqrstuvwxy".utf8)
    /// Upper-case letters without the look-alikes I, O.
    public static let uppercase = Array("ABCDEFGHJKLMNPQRSTUVWXYZ".utf8)
    /// Digits without the look-alikes 0, 1, 2.
    public static let digits = Array("3456789".utf8)
    /// The three sets joined: the 53 characters a position may hold.
    public static let alphabet = lowercase + uppercase + digits
    /// Length of a generated password in bytes (12 characters and 3 hyphens).
    public static let byteCount = 15
    /// Bits of entropy: log2 of the number of valid strings (≈ 68.44).
    public static let entropyBits = 68.44

    /// A new password in secure memory, e.g. `kFp-9Xa-mRt-4Qh`.
    public static func generate() -> Secret {
        let storage = SecureBytes(byteCount: byteCount)
        storage.withUnsafeMutableBytes { fill($0, uniform: Random.uniform) }
        return Secret(storage)
    }

    /// Writes one valid password into `buffer` (`byteCount` bytes), drawing
    /// each character with `uniform(n)` (a value in `0..<n`) and redrawing the
    /// whole string until it holds a character of each set.
    static func fill(_ buffer: UnsafeMutableRawBufferPointer, uniform: (UInt32) -> UInt32) {
        precondition(buffer.count == byteCount, "password buffer must be \(byteCount) bytes")
        let bound = UInt32(alphabet.count)
        let lowerEnd = lowercase.count, upperEnd = lowercase.count + uppercase.count
        alphabet.withUnsafeBufferPointer { chars in
            while true {
                var seen = 0  // bit 0 lower, 1 upper, 2 digit
                var offset = 0
                for position in 0..<12 {
                    if position > 0 && position % 3 == 0 {
                        buffer[offset] = UInt8(ascii: "-")
                        offset += 1
                    }
                    let index = Int(uniform(bound))
                    seen |= index < lowerEnd ? 1 : (index < upperEnd ? 2 : 4)
                    buffer[offset] = chars[index]
                    offset += 1
                }
                if seen == 7 { return }
            }
        }
    }
}
