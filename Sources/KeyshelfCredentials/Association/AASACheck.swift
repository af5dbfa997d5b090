import Foundation
import KeyshelfCrypto

/// `keyshelf aasa check` (issue 18 item 4): a site's association file
/// checked step by step, each step graded, for people checking their own
/// site. The same fetch, limits, trust and parser as `SiteVerifier`, so it
/// passes exactly when `associate` would succeed.
public struct AASACheck: Sendable {
    /// How a step went.
    public enum Grade: String, Sendable {
        case pass, warn, fail
    }

    /// One step: its name (`path`, `status`, `redirect`, `content-type`,
    /// `size`, `byte-order-mark`, `signature`, `json`, `entries`, `app`), grade and detail.
    public struct Step: Sendable, Equatable {
        public var name: String
        public var grade: Grade
        public var detail: String
    }

    /// The steps in order.
    public private(set) var steps: [Step] = []
    /// Whether `associate` would succeed: a file was read and lists the app
    /// (without an app: a file with a `webcredentials.apps` array was read).
    public private(set) var associates = false

    /// Runs the checks against `domain`.
    public init(domain: AssociatedDomain, app: AppIdentifier?, trust: AssociationTrust, timeoutSeconds: Int = 10) {
        let fetch = HTTPSFetch(trust: trust, timeoutSeconds: timeoutSeconds)
        var answer: (path: String, url: String, response: HTTPSFetch.Response)?
        for (path, url) in zip(AASAFile.paths, domain.fileURLs) {
            let response: HTTPSFetch.Response
            do {
                response = try fetch.get(url)
            } catch {
                add(error.code == .fileTooLarge ? "size" : "path", .fail, error.reason)
                return
            }
            switch response.status {
            case 200..<300:
                add("path", .pass, "\(path) answered")
                add("status", .pass, "HTTP \(response.status)")
                answer = (path, url, response)
            case 300..<400:
                let target = response.redirectURL.map { " to \(InertText.quoted($0))" } ?? ""
                add("redirect", path == AASAFile.paths[0] ? .warn : .fail, "\(path) redirects\(target) (HTTP \(response.status)); redirects are not followed: serve the file itself")
            case 500..<600:
                add("status", .warn, "\(path) answered HTTP \(response.status): temporarily unavailable (associate would retry)")
            default:
                add("status", path == AASAFile.paths[0] ? .warn : .fail, "\(path) answered HTTP \(response.status)")
            }
            if answer != nil { break }
        }
        guard let answer else { return }
        var body = answer.response.body
        let type = answer.response.contentType ?? "none"
        let signedType = type.lowercased().hasPrefix("application/pkcs7-mime")
        let signed = signedType || body.first == 0x30
        if type.lowercased().hasPrefix("application/json") || signedType {
            add("content-type", .pass, type)
        } else {
            add("content-type", .warn, "\(InertText.quoted(type)); serve application/json (application/pkcs7-mime for the signed form)")
        }
        add("size", .pass, "\(body.count) bytes (limit \(AASAFile.maximumByteCount))")
        if signed {
            guard trust.pin == nil || trust.caPEM != nil else {
                add("signature", .fail, "a signed (CMS) file: a pin alone cannot check its signer; give --cainfo, or serve plain JSON")
                return
            }
            do {
                body = try SignedContent.verify(body, trustedPEM: trust.caPEM, host: domain.server.host, maximumByteCount: AASAFile.maximumByteCount)
                add("signature", .pass, "signed (CMS), signature and signer verified for \(domain.server.host)")
            } catch {
                add("signature", .fail, "signed (CMS) but does not verify: \(error.reason); its content was not read")
                return
            }
        } else {
            add("signature", .pass, "plain JSON (not signed)")
        }
        let hasMark = body.starts(with: [0xEF, 0xBB, 0xBF])
        if hasMark {
            // Read on without it, to report the rest; associate refuses such a file.
            add("byte-order-mark", .fail, "the file starts with a UTF-8 byte-order mark; remove it")
            body.removeFirst(3)
        } else {
            add("byte-order-mark", .pass, "none")
        }
        let file: AASAFile
        do {
            file = try AASAFile(parsing: body)
            add("json", .pass, "valid JSON with webcredentials.apps")
        } catch {
            add("json", .fail, error.reason)
            return
        }
        if file.invalidEntries.isEmpty {
            add("entries", file.apps.isEmpty ? .warn : .pass, "\(file.apps.count) app identifier(s) in PREFIX.bundle.id form")
        } else {
            let shown = file.invalidEntries.prefix(5).map(InertText.quoted).joined(separator: ", ")
            add("entries", .warn, "\(file.invalidEntries.count) entr\(file.invalidEntries.count == 1 ? "y is" : "ies are") not PREFIX.bundle.id and never match: \(shown)")
        }
        guard let app else {
            associates = !hasMark
            return
        }
        if file.lists(app) {
            add("app", .pass, "\(app.value) is listed")
            associates = !hasMark
        } else {
            add("app", .fail, "\(app.value) is not listed in webcredentials.apps")
        }
        if !app.isApp { add("app", .warn, "\(app.value) is a client name; associate records it without a site check") }
    }

    private mutating func add(_ name: String, _ grade: Grade, _ detail: String) {
        steps.append(Step(name: name, grade: grade, detail: detail))
    }
}
