import CSodium

/// Argon2id limits (`crypto_pwhash`, `crypto_pwhash_ALG_ARGON2ID13`).
public struct PasswordHashLimits: Equatable, Sendable, CustomStringConvertible {
    /// Number of passes (libsodium's `opslimit`).
    public var opslimit: UInt64
    /// Memory in bytes (libsodium's `memlimit`).
    public var memlimitBytes: UInt64

    public init(opslimit: UInt64, memlimitBytes: UInt64) {
        self.opslimit = opslimit
        self.memlimitBytes = memlimitBytes
    }

    /// libsodium's INTERACTIVE limits (2 passes, 64 MiB).
    public static var interactive: PasswordHashLimits {
        .init(opslimit: UInt64(crypto_pwhash_opslimit_interactive()), memlimitBytes: UInt64(crypto_pwhash_memlimit_interactive()))
    }
    /// libsodium's MODERATE limits (3 passes, 256 MiB): the product default.
    public static var moderate: PasswordHashLimits {
        .init(opslimit: UInt64(crypto_pwhash_opslimit_moderate()), memlimitBytes: UInt64(crypto_pwhash_memlimit_moderate()))
    }
    /// libsodium's SENSITIVE limits (4 passes, 1 GiB).
    public static var sensitive: PasswordHashLimits {
        .init(opslimit: UInt64(crypto_pwhash_opslimit_sensitive()), memlimitBytes: UInt64(crypto_pwhash_memlimit_sensitive()))
    }
    /// The smallest limits Argon2id accepts (1 pass, 8 KiB). For tests only.
    public static var minimum: PasswordHashLimits {
        .init(opslimit: UInt64(crypto_pwhash_opslimit_min()), memlimitBytes: UInt64(crypto_pwhash_memlimit_min()))
    }

    public var description: String {
        "opslimit \(opslimit), memlimit \(memlimitBytes / 1024) KiB"
    }
}

/// Argon2id key derivation (`crypto_pwhash` with `crypto_pwhash_ALG_ARGON2ID13`).
public enum PasswordHash {
    /// Salt length in bytes (`crypto_pwhash_SALTBYTES`, 16).
    public static let saltByteCount = Int(crypto_pwhash_saltbytes())

    /// Derives `keyByteCount` bytes from `password` and `salt`.
    /// - Parameters:
    ///   - password: the master password bytes.
    ///   - salt: `saltByteCount` (16) random bytes.
    ///   - limits: opslimit and memlimit (bytes); the caller enforces ceilings.
    /// - Throws: `CryptoError.invalidLength` for a wrong salt size,
    ///   `CryptoError.keyDerivationFailed` when Argon2id cannot run (out of memory).
    public static func deriveKey(password: Secret, salt: [UInt8], limits: PasswordHashLimits, keyByteCount: Int = 32) throws -> SecureBytes {
        Sodium.ensureInitialized()
        guard salt.count == saltByteCount else {
            throw CryptoError.invalidLength(what: "salt", expectedByteCount: saltByteCount, actualByteCount: salt.count)
        }
        let key = SecureBytes(byteCount: keyByteCount)
        let rc: Int32 = key.withUnsafeMutableBytes { out in
            password.withUnsafeBytes { pw in
                pw.withMemoryRebound(to: CChar.self) { pwChars in
                    crypto_pwhash(
                        out.baseAddress!.assumingMemoryBound(to: UInt8.self), UInt64(keyByteCount),
                        pwChars.baseAddress!, UInt64(pw.count),
                        salt, limits.opslimit, Int(limits.memlimitBytes),
                        crypto_pwhash_ALG_ARGON2ID13)
                }
            }
        }
        guard rc == 0 else {
            throw CryptoError.keyDerivationFailed(opslimit: limits.opslimit, memlimitBytes: limits.memlimitBytes)
        }
        return key
    }
}
