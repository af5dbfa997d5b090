/// Why an association could not be made, used or checked (docs/associated-domains.md).
/// Compared by `code`; `reason` is a sentence the user can act on (hostile
/// text from a site or an argument is quoted inert).
public struct AssociationError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: Sendable, Equatable {
        /// The app identifier is neither `TEAMID.bundle.id` nor a client name such as `git`.
        case invalidAppIdentifier
        /// The domain is not a host name (or IP literal) with an optional port.
        case invalidDomain
        /// The client asked for a domain it is not associated with.
        case notAssociated
        /// The site's file is not a usable apple-app-site-association file.
        case malformedFile
        /// The site's file is larger than `AASAFile.maximumByteCount`.
        case fileTooLarge
        /// The site's file does not list the app identifier in `webcredentials.apps`.
        case appNotListed
        /// The site answered HTTP 300–499 (a redirect, not found, forbidden, …).
        case refusedBySite
        /// The site answered HTTP 500–599: retried later (`Association.State.pending`).
        case temporarilyUnavailable
        /// The site could not be reached, its certificate was not trusted, or the transfer timed out.
        case network
        /// A `--pin` or `--cainfo` argument that cannot be used.
        case invalidTrust
    }

    public var code: Code
    public var reason: String

    public init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    public var description: String { reason }

    public static func == (a: AssociationError, b: AssociationError) -> Bool { a.code == b.code }
}
