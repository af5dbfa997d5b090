/// The release rule for a client (DESIGN §3, §12): a client gets only the
/// credentials of domains it is associated with, where the association
/// releases (`Association.releases`: verified by the site, or declared for a
/// client name). A pure value over the stored associations.
public struct AssociationGate: Sendable {
    /// The client asking.
    public let client: AppIdentifier
    /// The client's associations (any state).
    public let associations: [Association]

    public init(client: AppIdentifier, associations: [Association]) {
        self.client = client
        self.associations = associations.filter { $0.app == client }
    }

    /// The domains `request(server: nil)` means for this client: every
    /// releasing association, sorted.
    public var releasingDomains: [AssociatedDomain] {
        associations.filter(\.releases).map(\.domain).sorted()
    }

    /// The association that lets this client have `server`'s credentials.
    /// - Throws: `AssociationError.notAssociated`, saying whether the client
    ///   has no association for the domain (and how to make one), or has one
    ///   that is pending or failed (and why).
    public func check(_ server: ServerName) throws(AssociationError) -> Association {
        guard let association = associations.first(where: { $0.domain.covers(server) }) else {
            let https = server.scheme == "https" ? "" : " (only https domains can be associated)"
            throw AssociationError(.notAssociated, "\(InertText.quoted(client.value)) is not associated with \(server.display)\(https); nothing was released. Associate it with `keyshelf associate \(client.value) \(server.display)`")
        }
        guard association.releases else {
            throw AssociationError(.notAssociated, "the association of \(InertText.quoted(client.value)) with \(association.domain.display) is \(association.stateName) (\(association.stateDetail)); nothing was released")
        }
        return association
    }

    /// Like `check`, for `server == nil`: the releasing domains.
    /// - Throws: `AssociationError.notAssociated` when the client has none.
    public func domains(for server: ServerName?) throws(AssociationError) -> [AssociatedDomain] {
        if let server { return [try check(server).domain] }
        let domains = releasingDomains
        guard !domains.isEmpty else {
            throw AssociationError(.notAssociated, "\(InertText.quoted(client.value)) is associated with no domain; nothing was released. Associate it with `keyshelf associate \(client.value) DOMAIN`")
        }
        return domains
    }
}
