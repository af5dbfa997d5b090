import Foundation
import KeyshelfCrypto

/// Checks that a site lists an app in its association file (DESIGN §12).
/// A protocol so the facade's rules can be tested without a network.
public protocol SiteCheck: Sendable {
    /// Fetches and reads `domain`'s file and checks that it lists `app`.
    /// - Returns: the path that answered and whether the file was signed.
    /// - Throws: `AssociationError` — `.temporarilyUnavailable` for HTTP
    ///   500–599 (retry later), any other code for a failure.
    func check(_ app: AppIdentifier, at domain: AssociatedDomain, trust: AssociationTrust) throws(AssociationError) -> (path: String, signed: Bool)
}

/// The real check over HTTPS (`HTTPSFetch`): the well-known path, then the
/// root path. A path that answers 2xx decides (its file must parse and list
/// the app); a 3xx (not followed), 4xx or 5xx moves on to the next path;
/// connection, certificate and time-out failures stop at once (the other
/// path is on the same host). When no path answered 2xx: 500–599 on either
/// makes it temporary, otherwise it fails, naming each path's answer.
public struct SiteVerifier: SiteCheck {
    /// Whole-transfer time-out per request, in seconds.
    public var timeoutSeconds: Int

    public init(timeoutSeconds: Int = 10) {
        self.timeoutSeconds = timeoutSeconds
    }

    public func check(_ app: AppIdentifier, at domain: AssociatedDomain, trust: AssociationTrust) throws(AssociationError) -> (path: String, signed: Bool) {
        let fetch = HTTPSFetch(trust: trust, timeoutSeconds: timeoutSeconds)
        var answers: [String] = [], temporary = false
        for (path, url) in zip(AASAFile.paths, domain.fileURLs) {
            let response = try fetch.get(url)
            switch response.status {
            case 200..<300:
                let (file, signed) = try Self.read(response, from: url, domain: domain, trust: trust)
                guard file.lists(app) else {
                    let listed = file.apps.isEmpty ? "no app" : file.apps.prefix(5).map(\.value).joined(separator: ", ") + (file.apps.count > 5 ? ", …" : "")
                    throw AssociationError(.appNotListed, "\(url) does not list \(app.value) in webcredentials.apps (it lists \(listed)); the site must add it")
                }
                return (path, signed)
            case 300..<400:
                let target = response.redirectURL.map { " to \(InertText.quoted($0))" } ?? ""
                answers.append("\(path) answered HTTP \(response.status), a redirect\(target) (redirects are not followed)")
            case 500..<600:
                temporary = true
                answers.append("\(path) answered HTTP \(response.status)")
            default:
                answers.append("\(path) answered HTTP \(response.status)")
            }
        }
        let summary = "\(domain.display): " + answers.joined(separator: "; ")
        throw AssociationError(temporary ? .temporarilyUnavailable : .refusedBySite, summary)
    }

    /// The file of a 2xx answer: plain JSON, or the signed legacy form
    /// (`application/pkcs7-mime`, or a body that starts as DER does) whose
    /// JSON is read only after `SignedContent` verified it against `trust`.
    /// - Returns: the file and whether it was signed.
    /// - Throws: `.malformedFile` for a signed file that does not verify (or
    ///   with only a pin, which cannot check a signer) and what `AASAFile` refuses.
    static func read(_ response: HTTPSFetch.Response, from url: String, domain: AssociatedDomain,
                     trust: AssociationTrust) throws(AssociationError) -> (file: AASAFile, signed: Bool) {
        let type = response.contentType?.lowercased() ?? ""
        var body = response.body, signed = false
        if type.hasPrefix("application/pkcs7-mime") || body.first == 0x30 {
            if trust.pin != nil && trust.caPEM == nil {
                throw AssociationError(.malformedFile, "\(url) is a signed (CMS) file, whose signer a pin alone cannot check; give --cainfo too, or serve plain JSON")
            }
            do {
                body = try SignedContent.verify(body, trustedPEM: trust.caPEM, host: domain.server.host, maximumByteCount: AASAFile.maximumByteCount)
            } catch {
                throw AssociationError(.malformedFile, "\(url) is a signed (CMS) file that does not verify (\(error.reason)); its content was not read")
            }
            signed = true
        }
        do {
            return (try AASAFile(parsing: body), signed)
        } catch {
            throw AssociationError(error.code, "\(url): \(error.reason)")
        }
    }
}
