import Foundation
import KeyshelfCredentials

/// Reads the APPID, DOMAIN, `--cainfo`, `--pin` and `--timeout` arguments of
/// the association commands before the vault is opened, so a mistake fails
/// with exit 2 and costs no master password.
enum AssociationArguments {
    /// `--cainfo PEM` and `--pin sha256//BASE64`, shared by `associate`.
    static let trustOptions: [OptionSpec] = [
        .value("--cainfo", valueName: "PEM", help: "trust only the certificates in this PEM file (a self-signed site) instead of the system CAs"),
        .value("--pin", valueName: "sha256//BASE64", help: "require this public key (base64 SHA-256 of the DER SubjectPublicKeyInfo; several joined by ';'); alone, the chain is not checked"),
        .value("--timeout", valueName: "SECONDS", help: "give up on a request after this long (default 10)"),
    ]

    /// The client's identifier.
    /// - Throws: `UsageError` (exit 2) naming the forms accepted.
    static func app(_ text: String) throws(UsageError) -> AppIdentifier {
        do { return try AppIdentifier(text) } catch { throw UsageError(error.reason) }
    }

    /// The associated domain.
    /// - Throws: `UsageError` (exit 2) quoting it.
    static func domain(_ text: String) throws(UsageError) -> AssociatedDomain {
        do { return try AssociatedDomain(parsing: text) } catch { throw UsageError(error.reason) }
    }

    /// The trust given by `--cainfo` (the file is read now) and `--pin`.
    /// - Throws: `UsageError` (exit 2) for a file that cannot be read or holds
    ///   no certificate, or a malformed pin.
    static func trust(_ arguments: ParsedArguments) throws(UsageError) -> AssociationTrust {
        var pem: String?
        if let path = arguments.value("--cainfo") {
            guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
                  (attributes[.size] as? Int ?? .max) <= AssociationTrust.maximumPEMByteCount,
                  let text = try? String(contentsOfFile: path, encoding: .utf8) else {
                throw UsageError("the --cainfo file \(InertText.quoted(path)) cannot be read as a PEM file of at most \(AssociationTrust.maximumPEMByteCount) bytes")
            }
            pem = text
        }
        do { return try AssociationTrust(caPEM: pem, pin: arguments.value("--pin")) } catch { throw UsageError(error.reason) }
    }

    /// `--timeout SECONDS` (1–300, default 10).
    static func timeout(_ arguments: ParsedArguments) throws(UsageError) -> Int {
        guard let text = arguments.value("--timeout") else { return 10 }
        return try ArgumentParser.integer(text, option: "--timeout", in: 1...300)
    }
}
