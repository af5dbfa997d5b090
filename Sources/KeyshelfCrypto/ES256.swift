import CLibCrypto

/// ECDSA over P-256 with SHA-256 (JOSE `ES256`, RFC 7518 §3.4) from OpenSSL's
/// libcrypto: signing with a PKCS#8 private key, for Sign in with Apple's
/// `client_secret` (docs/sign-in-with-apple.md). libsodium has no P-256.
public enum ES256 {
    /// A JOSE signature's length in bytes: `r ‖ s`, 32 bytes each.
    public static let signatureByteCount = 64

    /// Why a private key or a signature was refused.
    public struct KeyError: Error, Equatable, CustomStringConvertible {
        public var reason: String
        public var description: String { reason }
    }

    /// Checks that `pem` (a PEM `-----BEGIN PRIVATE KEY-----` PKCS#8 key, as
    /// Apple's `.p8` files are) holds an EC private key on P-256.
    /// - Throws: `KeyError` naming what is wrong (not PEM PKCS#8, not EC, another curve).
    public static func validate(privateKeyPEM pem: Secret) throws(KeyError) {
        let key = try load(pem)
        EVP_PKEY_free(key)
    }

    /// Signs `message` with the P-256 key in `pem`.
    ///
    /// The PEM text is read by OpenSSL straight from its sodium-allocated
    /// buffer (no copy on our side); OpenSSL's key is freed (and its secret
    /// wiped by OpenSSL) before returning; the DER signature is cleansed.
    /// The corresponding C functions are `PEM_read_bio_PrivateKey`,
    /// `EVP_DigestSign` and `d2i_ECDSA_SIG`.
    /// - Returns: the 64-byte JOSE signature `r ‖ s` (each big-endian, left-padded).
    /// - Throws: `KeyError` as `validate`, or when OpenSSL cannot sign.
    public static func sign(_ message: [UInt8], privateKeyPEM pem: Secret) throws(KeyError) -> [UInt8] {
        let key = try load(pem)
        defer { EVP_PKEY_free(key) }
        guard let context = EVP_MD_CTX_new() else { throw KeyError(reason: "OpenSSL could not allocate a signing context") }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestSignInit(context, nil, EVP_sha256(), nil, key) == 1 else { throw failure("EVP_DigestSignInit") }
        var length = 0
        guard EVP_DigestSign(context, nil, &length, message, message.count) == 1 else { throw failure("EVP_DigestSign") }
        var der = [UInt8](repeating: 0, count: length)
        defer { OPENSSL_cleanse(&der, der.count) }
        guard EVP_DigestSign(context, &der, &length, message, message.count) == 1 else { throw failure("EVP_DigestSign") }
        return try jose(der: Array(der[..<length]))
    }

    /// Converts a DER `ECDSA-Sig-Value` (`SEQUENCE { r INTEGER, s INTEGER }`)
    /// to JOSE `r ‖ s`, 32 bytes each.
    /// - Throws: `KeyError` when the DER does not parse or a value exceeds 32 bytes.
    public static func jose(der: [UInt8]) throws(KeyError) -> [UInt8] {
        var cursor: UnsafePointer<UInt8>?
        let parsed = der.withUnsafeBufferPointer { buffer -> OpaquePointer? in
            cursor = buffer.baseAddress
            return d2i_ECDSA_SIG(nil, &cursor, buffer.count)
        }
        guard let signature = parsed else { throw KeyError(reason: "the ECDSA signature is not DER") }
        defer { ECDSA_SIG_free(signature) }
        var out = [UInt8](repeating: 0, count: signatureByteCount)
        let ok = out.withUnsafeMutableBufferPointer { o in
            BN_bn2binpad(ECDSA_SIG_get0_r(signature), o.baseAddress, 32) == 32
                && BN_bn2binpad(ECDSA_SIG_get0_s(signature), o.baseAddress! + 32, 32) == 32
        }
        guard ok else { throw KeyError(reason: "an ECDSA signature value is longer than 32 bytes") }
        return out
    }

    /// The EVP key of `pem`, checked to be EC on P-256; the caller frees it.
    private static func load(_ pem: Secret) throws(KeyError) -> OpaquePointer {
        let key: OpaquePointer? = pem.withUnsafeBytes { bytes in
            guard bytes.count > 0, bytes.count < Int(Int32.max), let bio = keyshelf_bio_read_only(bytes.baseAddress, Int32(bytes.count)) else { return nil }
            defer { BIO_free(bio) }
            // No passphrase callback: an encrypted key is refused, never prompted for.
            return PEM_read_bio_PrivateKey(bio, nil, { _, _, _, _ in 0 }, nil)
        }
        ERR_clear_error()
        guard let key else {
            throw KeyError(reason: "not a PEM PKCS#8 private key (an AuthKey_KEYID.p8 file starts with -----BEGIN PRIVATE KEY-----)")
        }
        guard EVP_PKEY_get_base_id(key) == EVP_PKEY_EC else {
            EVP_PKEY_free(key)
            throw KeyError(reason: "the private key is not an elliptic-curve (EC) key; Sign in with Apple keys are P-256")
        }
        var name = [CChar](repeating: 0, count: 64)
        var length = 0
        let named = EVP_PKEY_get_utf8_string_param(key, "group", &name, name.count, &length) == 1
        // `length` counts the name's bytes, without the NUL after them.
        let curve = named ? String(decoding: name.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self) : ""
        guard curve == "prime256v1" else {
            EVP_PKEY_free(key)
            throw KeyError(reason: "the private key is on curve \(curve.isEmpty ? "(unknown)" : curve), not P-256 (prime256v1)")
        }
        return key
    }

    private static func failure(_ call: String) -> KeyError {
        ERR_clear_error()
        return KeyError(reason: "OpenSSL's \(call) failed")
    }
}
