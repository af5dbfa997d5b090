import CArgon2
import CLibCrypto
import CSodium

/// The primitives a KeePass database (KDBX 3.1 and 4) is sealed with, for
/// importing one (docs/import.md, "KeePassXC databases"). Each comes from a
/// library: SHA-256, SHA-512, HMAC-SHA-256, ChaCha20 and Salsa20 from
/// libsodium; AES-256 (CBC, and ECB for the AES-KDF) from OpenSSL's
/// libcrypto; Argon2d and Argon2id from libargon2 (libsodium has only
/// Argon2id and caps its parameters). Keys and plaintexts stay in `SecureBytes`.
public enum KeePassCrypto {
    /// SHA-256 of the concatenated `parts`. The corresponding C function is `crypto_hash_sha256`.
    public static func sha256(_ parts: [UnsafeRawBufferPointer]) -> SecureBytes {
        let out = SecureBytes(byteCount: 32)
        var state = crypto_hash_sha256_state()
        crypto_hash_sha256_init(&state)
        for part in parts where part.count > 0 {
            crypto_hash_sha256_update(&state, part.baseAddress!.assumingMemoryBound(to: UInt8.self), UInt64(part.count))
        }
        out.withUnsafeMutableBytes { _ = crypto_hash_sha256_final(&state, $0.baseAddress!.assumingMemoryBound(to: UInt8.self)) }
        sodium_memzero(&state, MemoryLayout.size(ofValue: state))
        return out
    }

    /// SHA-512 of the concatenated `parts`. The corresponding C function is `crypto_hash_sha512`.
    public static func sha512(_ parts: [UnsafeRawBufferPointer]) -> SecureBytes {
        let out = SecureBytes(byteCount: 64)
        var state = crypto_hash_sha512_state()
        crypto_hash_sha512_init(&state)
        for part in parts where part.count > 0 {
            crypto_hash_sha512_update(&state, part.baseAddress!.assumingMemoryBound(to: UInt8.self), UInt64(part.count))
        }
        out.withUnsafeMutableBytes { _ = crypto_hash_sha512_final(&state, $0.baseAddress!.assumingMemoryBound(to: UInt8.self)) }
        sodium_memzero(&state, MemoryLayout.size(ofValue: state))
        return out
    }

    /// HMAC-SHA-256 of the concatenated `parts` under `key` (any length).
    /// The corresponding C function is `crypto_auth_hmacsha256_init`.
    public static func hmacSHA256(key: UnsafeRawBufferPointer, _ parts: [UnsafeRawBufferPointer]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 32)
        var state = crypto_auth_hmacsha256_state()
        crypto_auth_hmacsha256_init(&state, key.baseAddress!.assumingMemoryBound(to: UInt8.self), key.count)
        for part in parts where part.count > 0 {
            crypto_auth_hmacsha256_update(&state, part.baseAddress!.assumingMemoryBound(to: UInt8.self), UInt64(part.count))
        }
        crypto_auth_hmacsha256_final(&state, &out)
        sodium_memzero(&state, MemoryLayout.size(ofValue: state))
        return out
    }

    /// Constant-time equality of two MACs. The corresponding C function is `sodium_memcmp`.
    public static func equalMACs(_ a: [UInt8], _ b: UnsafeRawBufferPointer) -> Bool {
        a.count == b.count && a.withUnsafeBytes { sodium_memcmp($0.baseAddress!, b.baseAddress!, a.count) == 0 }
    }

    /// The AES-KDF of KeePass: `key` (32 bytes) encrypted `rounds` times with
    /// AES-256-ECB under `seed` (32 bytes), then SHA-256.
    /// The corresponding C functions are `EVP_EncryptInit_ex` / `EVP_EncryptUpdate` with `EVP_aes_256_ecb`.
    public static func aesKDF(key: SecureBytes, seed: UnsafeRawBufferPointer, rounds: UInt64) -> SecureBytes? {
        guard seed.count == 32, key.byteCount == 32, let context = EVP_CIPHER_CTX_new() else { return nil }
        defer { EVP_CIPHER_CTX_free(context) }
        let work = key.copy(range: 0..<32)
        let ok: Bool = work.withUnsafeMutableBytes { block in
            guard EVP_EncryptInit_ex(context, EVP_aes_256_ecb(), nil, seed.baseAddress!.assumingMemoryBound(to: UInt8.self), nil) == 1,
                  EVP_CIPHER_CTX_set_padding(context, 0) == 1 else { return false }
            let p = block.baseAddress!.assumingMemoryBound(to: UInt8.self)
            var written: Int32 = 0
            for _ in 0..<rounds where EVP_EncryptUpdate(context, p, &written, p, 32) != 1 { return false }
            return true
        }
        guard ok else { return nil }
        return work.withUnsafeBytes { sha256([$0]) }
    }

    /// The Argon2 variants KDBX 4 uses.
    public enum Argon2Variant: Sendable { case d, id }

    /// Argon2d or Argon2id of `password` into 32 bytes. `memoryBytes` is the
    /// memory cost in bytes (KDBX stores bytes; libargon2 takes KiB).
    /// Returns nil when libargon2 refuses the parameters. The corresponding C function is `argon2_hash`.
    public static func argon2(_ variant: Argon2Variant, password: SecureBytes, salt: UnsafeRawBufferPointer,
                              iterations: UInt32, memoryBytes: UInt64, parallelism: UInt32, version: UInt32) -> SecureBytes? {
        let out = SecureBytes(byteCount: 32)
        let type = variant == .d ? Argon2_d : Argon2_id
        let status = password.withUnsafeBytes { pw in
            out.withUnsafeMutableBytes { o in
                argon2_hash(iterations, UInt32(memoryBytes / 1024), parallelism, pw.baseAddress, pw.count,
                            salt.baseAddress, salt.count, o.baseAddress, 32, nil, 0, type, version)
            }
        }
        return status == ARGON2_OK.rawValue ? out : nil
    }

    /// AES-256-CBC decryption with PKCS#7 padding; nil when the padding is
    /// wrong (a wrong key, or a damaged file). The corresponding C functions
    /// are `EVP_DecryptInit_ex` / `EVP_DecryptUpdate` / `EVP_DecryptFinal_ex` with `EVP_aes_256_cbc`.
    public static func aes256CBCDecrypt(key: SecureBytes, iv: UnsafeRawBufferPointer, _ data: UnsafeRawBufferPointer) -> SecureBytes? {
        guard iv.count == 16, key.byteCount == 32, data.count % 16 == 0, let context = EVP_CIPHER_CTX_new() else { return nil }
        defer { EVP_CIPHER_CTX_free(context) }
        let out = SecureBytes(byteCount: data.count + 16)
        var total: Int32 = 0
        let ok: Bool = key.withUnsafeBytes { k in
            out.withUnsafeMutableBytes { o in
                let op = o.baseAddress!.assumingMemoryBound(to: UInt8.self)
                var written: Int32 = 0
                guard EVP_DecryptInit_ex(context, EVP_aes_256_cbc(), nil, k.baseAddress!.assumingMemoryBound(to: UInt8.self),
                                         iv.baseAddress!.assumingMemoryBound(to: UInt8.self)) == 1,
                      EVP_DecryptUpdate(context, op, &written, data.baseAddress?.assumingMemoryBound(to: UInt8.self), Int32(data.count)) == 1
                else { return false }
                total = written
                guard EVP_DecryptFinal_ex(context, op + Int(written), &written) == 1 else { return false }
                total += written
                return true
            }
        }
        return ok ? out.copy(range: 0..<Int(total)) : nil
    }

    /// A stream cipher's key stream XORed over data, position kept across calls:
    /// ChaCha20 (RFC 8439, 12-byte nonce) or Salsa20 (8-byte nonce), counter from 0.
    /// The corresponding C functions are `crypto_stream_chacha20_ietf_xor_ic` and `crypto_stream_salsa20_xor_ic`.
    public final class StreamCipher {
        public enum Algorithm: Sendable { case chacha20, salsa20 }
        private let algorithm: Algorithm
        private let key: SecureBytes
        private let nonce: [UInt8]
        private var block = SecureBytes(byteCount: 64)
        private var blockCounter: UInt64 = 0
        private var used = 64

        /// - Precondition: `key` is 32 bytes; `nonce` is 12 bytes (ChaCha20) or 8 (Salsa20).
        public init(_ algorithm: Algorithm, key: SecureBytes, nonce: [UInt8]) {
            precondition(key.byteCount == 32 && nonce.count == (algorithm == .chacha20 ? 12 : 8), "stream cipher key or nonce size")
            self.algorithm = algorithm
            self.key = key
            self.nonce = nonce
        }

        /// XORs the next `bytes.count` bytes of the key stream into `bytes`.
        public func apply(_ bytes: UnsafeMutableRawBufferPointer) {
            for i in 0..<bytes.count {
                if used == 64 { refill() }
                bytes[i] ^= block.withUnsafeBytes { $0[used] }
                used += 1
            }
        }

        private func refill() {
            let zeros = [UInt8](repeating: 0, count: 64)
            key.withUnsafeBytes { k in
                block.withUnsafeMutableBytes { b in
                    let out = b.baseAddress!.assumingMemoryBound(to: UInt8.self)
                    let kp = k.baseAddress!.assumingMemoryBound(to: UInt8.self)
                    switch algorithm {
                    case .chacha20: _ = crypto_stream_chacha20_ietf_xor_ic(out, zeros, 64, nonce, UInt32(blockCounter), kp)
                    case .salsa20: _ = crypto_stream_salsa20_xor_ic(out, zeros, 64, nonce, blockCounter, kp)
                    }
                }
            }
            blockCounter += 1
            used = 0
        }
    }
}
