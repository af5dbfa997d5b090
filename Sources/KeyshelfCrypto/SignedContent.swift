import CLibCrypto

/// The content of a CMS SignedData (the legacy signed apple-app-site-association
/// form: what `openssl smime -sign -nodetach -outform DER` writes), returned
/// only after its signature and signer certificate verified (OpenSSL's CMS
/// API: `d2i_CMS_bio`, `CMS_verify`).
///
/// The signer's chain is checked against `trustedPEM` (only those
/// certificates) or, when nil, the system CAs; with purpose "any" (a TLS
/// certificate is no S/MIME certificate) and the host name (or IP) checked,
/// which `CMS_verify` would not do by itself (REFERENCE, "OpenSSL 3 CMS").
public enum SignedContent {
    /// Why the content was not released.
    public struct Failure: Error, Sendable {
        /// OpenSSL's reason, for the user.
        public var reason: String
    }

    /// Verifies `der` and returns its content.
    /// - Parameters:
    ///   - host: the host name or IP literal the signer's certificate must be valid for.
    ///   - maximumByteCount: largest content returned.
    /// - Throws: `Failure` when `der` is not CMS, the signature or the chain
    ///   does not verify, the host does not match, or the content is too large.
    public static func verify(_ der: [UInt8], trustedPEM: String?, host: String, maximumByteCount: Int) throws(Failure) -> [UInt8] {
        ERR_clear_error()
        let input = der.withUnsafeBytes { BIO_new_mem_buf($0.baseAddress, Int32($0.count)) }
        defer { BIO_free(input) }
        guard let cms = d2i_CMS_bio(input, nil) else { throw failure("not a CMS SignedData structure") }
        defer { CMS_ContentInfo_free(cms) }
        guard let store = X509_STORE_new() else { throw failure("no certificate store") }
        defer { X509_STORE_free(store) }
        if let trustedPEM {
            let pem = Array(trustedPEM.utf8)
            let bio = pem.withUnsafeBytes { BIO_new_mem_buf($0.baseAddress, Int32($0.count)) }
            defer { BIO_free(bio) }
            while let certificate = PEM_read_bio_X509(bio, nil, nil, nil) {
                X509_STORE_add_cert(store, certificate)
                X509_free(certificate)
            }
            ERR_clear_error()
        } else {
            X509_STORE_set_default_paths(store)
        }
        let parameters = X509_STORE_get0_param(store)
        X509_VERIFY_PARAM_set_purpose(parameters, X509_PURPOSE_ANY)
        let isIP = host.contains(":") || host.split(separator: ".").allSatisfy { !$0.isEmpty && $0.allSatisfy(\.isNumber) }
        if isIP {
            X509_VERIFY_PARAM_set1_ip_asc(parameters, host)
        } else {
            X509_VERIFY_PARAM_set1_host(parameters, host, 0)
        }
        guard let output = BIO_new(BIO_s_mem()) else { throw failure("no memory") }
        defer { BIO_free(output) }
        guard CMS_verify(cms, nil, store, nil, output, UInt32(CMS_BINARY)) == 1 else { throw failure("the signature does not verify") }
        var data: UnsafeMutablePointer<CChar>?
        let count = keyshelf_bio_mem_data(output, &data)
        guard count <= maximumByteCount else { throw Failure(reason: "the signed content is larger than \(maximumByteCount) bytes") }
        guard count > 0, let data else { return [] }
        return Array(UnsafeRawBufferPointer(start: data, count: count))
    }

    private static func failure(_ what: String) -> Failure {
        let code = ERR_get_error()
        ERR_clear_error()
        guard code != 0 else { return Failure(reason: what) }
        var text = [CChar](repeating: 0, count: 256)
        ERR_error_string_n(code, &text, text.count)
        let reason = String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return Failure(reason: "\(what): \(reason)")
    }
}
