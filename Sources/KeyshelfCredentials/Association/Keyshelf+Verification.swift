import Foundation

/// Making and renewing associations (issue 18 items 1, 3): the site check
/// for app identifiers, the user's word for client names, and the retry
/// schedule of a site that was temporarily unavailable.
extension Keyshelf {
    /// `keyshelf associate APPID DOMAIN`: checks the site (an app identifier)
    /// or takes the user's word (a client name, which no site can list), and
    /// stores the outcome.
    ///
    /// - A listed app → `.verified`, stored.
    /// - HTTP 500–599 → `.pending`, stored (the first attempt counted), and
    ///   returned: the caller says it will be retried.
    /// - Any other failure → nothing new is stored; an association stored
    ///   before is marked `.failed` (the site no longer agrees); thrown.
    /// - Returns: the stored association.
    /// - Throws: the check's `AssociationError` (not `.temporarilyUnavailable`); vault errors.
    @discardableResult
    public func associate(_ app: AppIdentifier, _ domain: AssociatedDomain, trust: AssociationTrust,
                          site: any SiteCheck, now: Date = Date()) throws -> Association {
        guard app.isApp else {
            let association = Association(app: app, domain: domain, state: .declared(at: now), trust: trust)
            try record(association)
            return association
        }
        return try verify(app, domain, trust: trust, attemptsBefore: 0, existing: association(app, domain), site: site, now: now)
    }

    /// Checks again every `pending` association of `app` (of `domain` only,
    /// when given) — the client asked, so the 3-hour wait does not apply —
    /// and stores the outcomes. Failures are stored, not thrown.
    /// - Returns: the associations checked, in their new state.
    /// - Throws: vault errors.
    @discardableResult
    public func retryPending(of app: AppIdentifier, domain: AssociatedDomain? = nil, site: any SiteCheck, now: Date = Date()) throws -> [Association] {
        try associations(of: app).filter { domain == nil || $0.domain == domain }.compactMap { association in
            guard case let .pending(attempts, _, _) = association.state else { return nil }
            do {
                return try verify(app, association.domain, trust: association.trust, attemptsBefore: attempts,
                                  existing: association, site: site, now: now)
            } catch let error as AssociationError {
                return self.association(app, association.domain) ?? Association(app: app, domain: association.domain,
                                                                                state: .failed(at: now, reason: error.reason))
            }
        }
    }

    /// Every stored `pending` association whose next attempt is due at `now`,
    /// checked again (`keyshelf associations --retry`).
    /// - Returns: the associations checked, in their new state.
    @discardableResult
    public func retryDue(site: any SiteCheck, now: Date = Date()) throws -> [Association] {
        var checked: [Association] = []
        for association in associations() {
            guard case let .pending(_, next, _) = association.state, next <= now else { continue }
            checked += try retryPending(of: association.app, domain: association.domain, site: site, now: now)
        }
        return checked
    }

    private func verify(_ app: AppIdentifier, _ domain: AssociatedDomain, trust: AssociationTrust, attemptsBefore: Int,
                        existing: Association?, site: any SiteCheck, now: Date) throws -> Association {
        let state: Association.State
        switch Result(catching: { () throws(AssociationError) in try site.check(app, at: domain, trust: trust) }) {
        case .success(let answer):
            state = .verified(at: now, path: answer.path, signed: answer.signed)
        case .failure(let error) where error.code == .temporarilyUnavailable:
            state = Association.afterTemporaryFailure(attemptsBefore: attemptsBefore, reason: error.reason, now: now)
        case .failure(let error):
            if existing != nil {
                try record(Association(app: app, domain: domain, state: .failed(at: now, reason: error.reason), trust: trust))
            }
            throw error
        }
        let association = Association(app: app, domain: domain, state: state, trust: trust)
        try record(association)
        return association
    }
}
