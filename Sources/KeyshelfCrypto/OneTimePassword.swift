import CLibCrypto
import COath
import CSodium
import Glibc

/// The HMAC hash of an OATH one-time code (RFC 4226 §5.2, RFC 6238 §1.2).
public enum OTPHash: String, Sendable, CaseIterable {
    case sha1 = "SHA1"
    case sha256 = "SHA256"
    case sha512 = "SHA512"
}

/// Why a one-time-password secret could not be used.
public enum OneTimePasswordError: Error, Sendable, Equatable {
    /// The text is not base32 (liboath's `OATH_INVALID_BASE32`), or decodes to no bytes.
    case invalidBase32
    /// liboath refused the computation; the C error name (`oath_strerror_name`).
    case library(String)
}

/// One-time codes from a secret key: liboath for HOTP/TOTP with 6–8 digits,
/// and the RFC 4226 dynamic-truncation value (31 bits) for the forms
/// liboath does not cover (Steam, 9–10 digits).
///
/// liboath 2.6 exposes no raw HMAC, so the truncation value takes its HMAC
/// from libsodium (`crypto_auth_hmacsha256` / `hmacsha512`) and from OpenSSL's
/// libcrypto (`HMAC` with `EVP_sha1`; libsodium has no SHA-1). The only
/// module importing `COath` (docs/otp.md).
public enum OneTimePassword {
    /// Digit counts liboath computes (`OATH_INVALID_DIGITS` otherwise).
    public static let libraryDigits = 6...8

    /// liboath's `oath_init`, run once before the first call.
    private static let initialized: Int32 = oath_init()

    /// The RFC 4226 HOTP code for `counter`, `digits` long, zero-padded. A TOTP
    /// code is this with `counter` = ⌊unix time / period⌋ (RFC 6238 §4.2).
    ///
    /// Calls `oath_totp_generate2` with a time step of 1 second and the
    /// counter as the time, which gives the HOTP value for SHA-256/512 too
    /// (`oath_hotp_generate` is SHA-1 only).
    /// - Parameters:
    ///   - key: the decoded secret key (bytes).
    ///   - digits: 6, 7 or 8 (`libraryDigits`); anything else is a programmer error.
    /// - Throws: `OneTimePasswordError.library` when liboath refuses.
    public static func code(key: Secret, counter: UInt64, digits: Int, hash: OTPHash) throws(OneTimePasswordError) -> String {
        precondition(libraryDigits.contains(digits), "liboath computes 6 to 8 digits")
        precondition(counter <= UInt64(Int.max), "counter beyond time_t")
        precondition(initialized == OATH_OK.rawValue, "oath_init failed")
        let flags: Int32 = switch hash {
        case .sha1: 0
        case .sha256: Int32(OATH_TOTP_HMAC_SHA256.rawValue)
        case .sha512: Int32(OATH_TOTP_HMAC_SHA512.rawValue)
        }
        var output = [CChar](repeating: 0, count: 16)
        let status = key.withUnsafeBytes { bytes in
            bytes.withMemoryRebound(to: CChar.self) { chars in
                oath_totp_generate2(chars.baseAddress, chars.count, time_t(counter), 1, 0, UInt32(digits), flags, &output)
            }
        }
        guard status == OATH_OK.rawValue else {
            throw .library(String(cString: oath_strerror_name(status)))
        }
        return String(decoding: output.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The RFC 4226 §5.3 dynamic-truncation value (31 bits) of
    /// HMAC-`hash`(`key`, `counter` as 8 big-endian bytes): the number a
    /// code's digits (value mod 10^digits) or Steam's letters are taken from.
    public static func truncatedValue(key: Secret, counter: UInt64, hash: OTPHash) -> UInt32 {
        var message = [UInt8](repeating: 0, count: 8)
        for i in 0..<8 { message[i] = UInt8(truncatingIfNeeded: counter >> (8 * (7 - UInt64(i)))) }
        var mac = [UInt8](repeating: 0, count: 64)
        defer { sodium_memzero(&mac, mac.count) }
        let macByteCount = key.withUnsafeBytes { keyBytes -> Int in
            precondition(keyBytes.count > 0, "an empty one-time-password key")
            let keyPointer = keyBytes.baseAddress!.assumingMemoryBound(to: UInt8.self)
            switch hash {
            case .sha1:
                var length: UInt32 = 0
                let out = HMAC(EVP_sha1(), keyPointer, Int32(keyBytes.count), message, message.count, &mac, &length)
                precondition(out != nil && length == 20, "HMAC(SHA-1) failed")
                return 20
            case .sha256:
                var state = crypto_auth_hmacsha256_state()
                defer { sodium_memzero(&state, MemoryLayout<crypto_auth_hmacsha256_state>.size) }
                crypto_auth_hmacsha256_init(&state, keyPointer, keyBytes.count)
                crypto_auth_hmacsha256_update(&state, message, UInt64(message.count))
                crypto_auth_hmacsha256_final(&state, &mac)
                return 32
            case .sha512:
                var state = crypto_auth_hmacsha512_state()
                defer { sodium_memzero(&state, MemoryLayout<crypto_auth_hmacsha512_state>.size) }
                crypto_auth_hmacsha512_init(&state, keyPointer, keyBytes.count)
                crypto_auth_hmacsha512_update(&state, message, UInt64(message.count))
                crypto_auth_hmacsha512_final(&state, &mac)
                return 64
            }
        }
        let offset = Int(mac[macByteCount - 1] & 0x0f)
        return (UInt32(mac[offset] & 0x7f) << 24) | (UInt32(mac[offset + 1]) << 16)
            | (UInt32(mac[offset + 2]) << 8) | UInt32(mac[offset + 3])
    }

    /// Decodes base32 text (RFC 4648) with `oath_base32_decode`, which
    /// accepts lower case, spaces and missing padding; the result is copied
    /// into sodium memory and liboath's buffer wiped and freed.
    /// - Throws: `.invalidBase32` for text that is not base32 or decodes to nothing.
    public static func base32Decode(_ text: String) throws(OneTimePasswordError) -> Secret {
        precondition(initialized == OATH_OK.rawValue, "oath_init failed")
        var input = Array(text.utf8CString.dropLast())
        defer { sodium_memzero(&input, input.count) }
        var output: UnsafeMutablePointer<CChar>?
        var length = 0
        let status = oath_base32_decode(input, input.count, &output, &length)
        defer {
            if let output {
                sodium_memzero(output, length)
                free(output)
            }
        }
        guard status == OATH_OK.rawValue, let output, length > 0 else { throw .invalidBase32 }
        return Secret(SecureBytes(copying: UnsafeRawBufferPointer(start: output, count: length)))
    }

    /// Encodes `key` as base32 (RFC 4648, upper case, without `=` padding)
    /// with `oath_base32_encode`, for writing an `otpauth://` URI.
    public static func base32Encode(_ key: Secret) -> String {
        precondition(initialized == OATH_OK.rawValue, "oath_init failed")
        var output: UnsafeMutablePointer<CChar>?
        var length = 0
        let status = key.withUnsafeBytes { bytes in
            bytes.withMemoryRebound(to: CChar.self) { oath_base32_encode($0.baseAddress, $0.count, &output, &length) }
        }
        defer {
            if let output {
                sodium_memzero(output, length)
                free(output)
            }
        }
        precondition(status == OATH_OK.rawValue, "oath_base32_encode failed")
        guard let output else { return "" }
        let text = String(decoding: UnsafeRawBufferPointer(start: output, count: length), as: UTF8.self)
        return String(text.prefix { $0 != "=" })
    }
}
