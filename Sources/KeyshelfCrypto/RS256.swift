import CLibCrypto

/// RSASSA-PKCS1-v1_5 with SHA-256 (JOSE `RS256`, RFC 7518 §3.3) from OpenSSL's
/// libcrypto: verifying Sign in with Apple identity tokens against a public
/// key given as a JWK's modulus and exponent (docs/sign-in-with-apple.md).
public enum RS256 {
    /// The smallest modulus accepted, in bits (RFC 7518 §3.3: 2048 or larger).
    public static let minimumModulusBits = 2048

    /// Why a public key could not be used.
    public struct KeyError: Error, Equatable, CustomStringConvertible {
        public var reason: String
        public var description: String { reason }
    }

    /// Whether `signature` is a valid RS256 signature of `message` under the
    /// RSA public key (`modulus`, `exponent`: big-endian unsigned integers,
    /// a JWK's decoded `n` and `e`). The corresponding C functions are
    /// `EVP_PKEY_fromdata` and `EVP_DigestVerify`.
    /// - Throws: `KeyError` when the key is malformed or shorter than `minimumModulusBits`.
    public static func verify(_ signature: [UInt8], of message: [UInt8], modulus: [UInt8], exponent: [UInt8]) throws(KeyError) -> Bool {
        let key = try publicKey(modulus: modulus, exponent: exponent)
        defer { EVP_PKEY_free(key) }
        guard EVP_PKEY_get_bits(key) >= Int32(minimumModulusBits) else {
            throw KeyError(reason: "the RSA key has \(EVP_PKEY_get_bits(key)) bits, under \(minimumModulusBits)")
        }
        guard let context = EVP_MD_CTX_new() else { throw KeyError(reason: "OpenSSL could not allocate a verification context") }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestVerifyInit(context, nil, EVP_sha256(), nil, key) == 1 else {
            ERR_clear_error()
            throw KeyError(reason: "OpenSSL's EVP_DigestVerifyInit failed")
        }
        let result = EVP_DigestVerify(context, signature, signature.count, message, message.count)
        ERR_clear_error()
        return result == 1
    }

    private static func publicKey(modulus: [UInt8], exponent: [UInt8]) throws(KeyError) -> OpaquePointer {
        guard !modulus.isEmpty, !exponent.isEmpty, exponent.count <= 8 else { throw KeyError(reason: "the RSA modulus or exponent is malformed") }
        let n = BN_bin2bn(modulus, Int32(modulus.count), nil)
        let e = BN_bin2bn(exponent, Int32(exponent.count), nil)
        defer { BN_free(n); BN_free(e) }
        guard let n, let e, let builder = OSSL_PARAM_BLD_new() else { throw KeyError(reason: "OpenSSL could not allocate the RSA key") }
        defer { OSSL_PARAM_BLD_free(builder) }
        guard keyshelf_param_bld_push_rsa_public(builder, n, e) == 1, let params = OSSL_PARAM_BLD_to_param(builder) else { throw KeyError(reason: "OpenSSL could not build the RSA key") }
        defer { OSSL_PARAM_free(params) }
        guard let context = EVP_PKEY_CTX_new_from_name(nil, "RSA", nil) else { throw KeyError(reason: "OpenSSL has no RSA") }
        defer { EVP_PKEY_CTX_free(context) }
        var key: OpaquePointer?
        guard EVP_PKEY_fromdata_init(context) == 1, EVP_PKEY_fromdata(context, &key, keyshelf_evp_pkey_public_key(), params) == 1,
              let key else {
            ERR_clear_error()
            throw KeyError(reason: "the RSA modulus and exponent do not make a public key")
        }
        return key
    }
}
