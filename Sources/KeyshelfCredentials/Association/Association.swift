import Foundation

/// One association: `app` may use the shared credentials of `domain`
/// (DESIGN §12), with the state of the site's agreement.
public struct Association: Sendable, Equatable {
    /// The client.
    public var app: AppIdentifier
    /// The associated domain (`webcredentials:<fqdn>[:port]`).
    public var domain: AssociatedDomain
    /// How far the three parties agree.
    public var state: State
    /// The trust the site's certificate was (and will be) checked with.
    public var trust: AssociationTrust

    /// The states of an association; only `verified` and `declared` release credentials.
    public enum State: Sendable, Equatable {
        /// The site's file, fetched from `path` at `at`, lists the app (`signed`: the CMS form).
        case verified(at: Date, path: String, signed: Bool)
        /// A client name (`git`): no site can list it, so the user's word is the association.
        case declared(at: Date)
        /// The site answered 500–599: retried from `nextAttempt` on (every
        /// `Association.retryInterval`, at most `Association.maximumAttempts`
        /// attempts), and whenever the client asks. `attempts` made so far.
        case pending(attempts: Int, nextAttempt: Date, reason: String)
        /// The site refused, or stayed unavailable for every attempt; nothing is released.
        case failed(at: Date, reason: String)
    }

    /// Time between attempts of a `pending` association: 3 hours (Apple's schedule).
    public static let retryInterval: TimeInterval = 3 * 3600
    /// Attempts before a `pending` association becomes `failed`: 8.
    public static let maximumAttempts = 8

    public init(app: AppIdentifier, domain: AssociatedDomain, state: State, trust: AssociationTrust = .system) {
        self.app = app
        self.domain = domain
        self.state = state
        self.trust = trust
    }

    /// Whether the client may be given this domain's credentials.
    public var releases: Bool {
        switch state {
        case .verified, .declared: true
        case .pending, .failed: false
        }
    }

    /// "verified", "declared", "pending", or "failed".
    public var stateName: String {
        switch state {
        case .verified: "verified"
        case .declared: "declared"
        case .pending: "pending"
        case .failed: "failed"
        }
    }

    /// A sentence on the state, for listings.
    public var stateDetail: String {
        switch state {
        case let .verified(at, path, signed):
            "\(path) lists the app\(signed ? " (signed file)" : ""); checked \(Self.timestamp(at))"
        case let .declared(at):
            "client name declared by the user \(Self.timestamp(at)); no site check"
        case let .pending(attempts, next, reason):
            "\(reason); attempt \(attempts) of \(Self.maximumAttempts), next after \(Self.timestamp(next)) or when the client asks"
        case let .failed(at, reason):
            "\(reason) (\(Self.timestamp(at)))"
        }
    }

    /// `2026-12-02T05:46:42Z`.
    static func timestamp(_ date: Date) -> String {
        ISO8601DateFormatter().string(from: date)
    }

    /// The state after a temporary failure at `now`: pending with one more
    /// attempt counted, or failed when that was the last allowed.
    public static func afterTemporaryFailure(attemptsBefore: Int, reason: String, now: Date) -> State {
        let attempts = attemptsBefore + 1
        guard attempts < maximumAttempts else {
            return .failed(at: now, reason: "\(reason); gave up after \(attempts) attempts")
        }
        return .pending(attempts: attempts, nextAttempt: now.addingTimeInterval(retryInterval), reason: reason)
    }
}
