import Foundation
import KeyshelfVault

/// Associated domains (issue 18, docs/associated-domains.md): which client
/// may use which domain's shared credentials. Associations are stored in the
/// shared credentials (`AssociationRecords`), so they sync with them.
extension Keyshelf {
    /// The stored associations, of `app` only when given, sorted by app then domain.
    public func associations(of app: AppIdentifier? = nil) -> [Association] {
        let all = AssociationRecords.all(in: items.shared)
        guard let app else { return all }
        return all.filter { $0.app == app }
    }

    /// The association of `app` with `domain`, if stored.
    public func association(_ app: AppIdentifier, _ domain: AssociatedDomain) -> Association? {
        associations(of: app).first { $0.domain == domain }
    }

    /// Saves `association`, replacing the one stored for its app and domain.
    /// No consent: the user asked for it (`keyshelf associate`), and the
    /// credentials it guards are still released only with consent.
    /// - Throws: the vault's errors.
    public func record(_ association: Association) throws {
        let now = Date()
        try vault.modifyItems { items in
            try Keyshelf.editing(.shared, of: &items) { try AssociationRecords.set(association, in: &$0, now: now) }
        }
        try reload()
    }

    /// `keyshelf dissociate`: removes the association of `app` with `domain`
    /// (a tombstone, so the removal syncs).
    /// - Throws: `errSecItemNotFound` when there is none; the vault's errors.
    public func dissociate(_ app: AppIdentifier, _ domain: AssociatedDomain) throws {
        let now = Date()
        do {
            try vault.modifyItems { items in
                try Keyshelf.editing(.shared, of: &items) { try AssociationRecords.remove(app, domain, in: &$0, now: now) }
            }
        } catch let error as KeychainError where error.status == .itemNotFound {
            throw KeychainError(.itemNotFound, "\(InertText.quoted(app.value)) is not associated with \(domain.display)")
        }
        try reload()
    }

    /// The release rule for `client` over the stored associations.
    public func gate(for client: AppIdentifier) -> AssociationGate {
        AssociationGate(client: client, associations: associations(of: client))
    }

    /// `keyshelf get [SERVER] [ACCOUNT] --client APPID`: like `get`, but only
    /// for domains `client` is associated with, and every release consent
    /// names the client (`ClientConsent`). `server == nil` means every
    /// associated domain (the reference's `fqdn == NULL`): one record per
    /// domain that has one, in domain order. `filter` narrows the stores as for `get`.
    /// - Returns: at least one record.
    /// - Throws: `AssociationError.notAssociated` (before anything is looked
    ///   up or asked) for a domain the client is not associated with, or when
    ///   it has none; then `get`'s errors: `errSecItemNotFound` when no
    ///   associated domain has a credential, `errSecUserCanceled` when every
    ///   release was declined.
    public func get(server: ServerName?, account: String? = nil, in filter: StoreFilter = .both, client: AppIdentifier) throws -> [CredentialRecord] {
        let domains = try gate(for: client).domains(for: server)
        let saved = consent
        consent = ClientConsent(client: client, base: saved)
        defer { consent = saved }
        var records: [CredentialRecord] = []
        var lastError: (any Error)?
        for domain in domains {
            do {
                records.append(try get(server: server ?? domain.server, account: account, in: filter))
            } catch let error as KeychainError where server == nil && [.itemNotFound, .userCanceled].contains(error.status) {
                lastError = error
            }
        }
        guard !records.isEmpty else {
            if domains.count > 1, let error = lastError as? KeychainError, error.status == .itemNotFound {
                throw KeychainError(.itemNotFound, "no saved password on the \(domains.count) domains \(InertText.quoted(client.value)) is associated with")
            }
            throw lastError ?? KeychainError(.itemNotFound, "nothing was released to \(InertText.quoted(client.value))")
        }
        return records
    }
}
