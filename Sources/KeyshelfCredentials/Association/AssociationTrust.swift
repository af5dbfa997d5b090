import Foundation

/// What a site's certificate must satisfy when its association file is
/// fetched: valid for the domain by the system CAs, or by `caPEM` (a
/// self-signed certificate, `--cainfo`); and, when `pin` is set, its public
/// key must match (`--pin`, libcurl's `CURLOPT_PINNEDPUBLICKEY`). Stored with
/// the association so a retry trusts what the user chose.
public struct AssociationTrust: Sendable, Equatable, Codable {
    /// PEM certificates to trust instead of the system's (the file's text, not its path).
    public var caPEM: String?
    /// `sha256//BASE64[;sha256//BASE64…]`: base64 of the SHA-256 of the DER SubjectPublicKeyInfo.
    public var pin: String?

    /// Largest `--cainfo` file accepted, in bytes.
    public static let maximumPEMByteCount = 256 * 1024

    /// Checks the options.
    /// - Throws: `AssociationError.invalidTrust` for a pin not of the form
    ///   `sha256//` + base64 of 32 bytes (several joined by `;`), or a PEM
    ///   text without a certificate or over `maximumPEMByteCount`.
    public init(caPEM: String? = nil, pin: String? = nil) throws(AssociationError) {
        if let pin {
            let parts = pin.split(separator: ";", omittingEmptySubsequences: false)
            for part in parts {
                guard part.hasPrefix("sha256//"), let digest = Data(base64Encoded: String(part.dropFirst(8))), digest.count == 32 else {
                    throw AssociationError(.invalidTrust, "the pin \(InertText.quoted(String(part))) is not sha256// followed by the base64 of a 32-byte SHA-256 (openssl x509 -pubkey -noout | openssl pkey -pubin -outform der | openssl dgst -sha256 -binary | base64)")
                }
            }
        }
        if let caPEM {
            guard caPEM.utf8.count <= Self.maximumPEMByteCount else {
                throw AssociationError(.invalidTrust, "the --cainfo file is larger than \(Self.maximumPEMByteCount) bytes")
            }
            guard caPEM.contains("-----BEGIN CERTIFICATE-----") else {
                throw AssociationError(.invalidTrust, "the --cainfo file holds no PEM certificate (-----BEGIN CERTIFICATE-----)")
            }
        }
        self.caPEM = caPEM
        self.pin = pin
    }

    /// The system CAs, no pin.
    public static let system = try! AssociationTrust()

    /// "system CAs", "the given CA file", with ", pinned key" when pinned.
    public var summary: String {
        (caPEM == nil ? "system CAs" : "own CA file") + (pin == nil ? "" : ", pinned key")
    }
}
