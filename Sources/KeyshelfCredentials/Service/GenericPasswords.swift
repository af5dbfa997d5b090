import Foundation
import KeyshelfCrypto
import KeyshelfVault

/// A generic password (`kSecClassGenericPassword`: a `service` and an
/// `account`, e.g. an API token) as listings show it; no secret inside.
public struct GenericEntry: Sendable, Equatable, Identifiable {
    public var id: UUID
    /// The local store, or the shared (synced) file for a synchronizable item.
    public var store: Store
    /// `kSecAttrService`.
    public var service: String
    public var account: String
    /// `kSecAttrLabel`.
    public var label: String
    /// `kSecAttrComment`: the user's notes.
    public var comment: String
    public var creationDate: Date
    public var modificationDate: Date
    /// `.userPresence`: releasing it asks the master password again.
    public var accessControl: AccessControl

    /// An entry as another process reported it (the agent's `search` reply).
    public init(id: UUID, store: Store, service: String, account: String, label: String, comment: String,
                creationDate: Date, modificationDate: Date, accessControl: AccessControl) {
        self.id = id
        self.store = store
        self.service = service
        self.account = account
        self.label = label
        self.comment = comment
        self.creationDate = creationDate
        self.modificationDate = modificationDate
        self.accessControl = accessControl
    }

    init(_ item: Item, store: Store) {
        id = item.id
        self.store = store
        service = item.service
        account = item.account
        label = item.label
        comment = item.comment
        creationDate = item.creationDate
        modificationDate = item.modificationDate
        accessControl = item.accessControl
    }
}

extension Keyshelf {
    /// Services keyshelf keeps for itself (`keyshelf.passwordrules`): never
    /// listed, and refused as a user's service name.
    public static func isReservedService(_ service: String) -> Bool {
        service.hasPrefix("keyshelf.")
    }
}

extension ShelfReader {
    func genericEntries(service: String?, in filter: StoreFilter) -> [GenericEntry] {
        guard service != nil || filter != .both else { return generics }
        return generics.filter { (service == nil || $0.service == service) && filter.contains($0.store) }
    }

    /// The live generic passwords of both stores of `snapshot`, reserved
    /// services left out; sorted by service, then account, local before shared.
    static func genericEntries(of snapshot: VaultContents) -> [GenericEntry] {
        let query = ItemQuery(itemClass: .genericPassword)
        var found: [GenericEntry] = []
        for store in Store.allCases {
            let list = snapshot[store]
            for i in list.indices(inPlace: query.matches) where !Keyshelf.isReservedService(list[i].service) {
                found.append(GenericEntry(list[i], store: store))
            }
        }
        return found.sorted { a, b in
            (a.service, a.account, a.store == .local ? 0 : 1) < (b.service, b.account, b.store == .local ? 0 : 1)
        }
    }

    func genericPassword(service: String, account: String?) throws -> (entry: GenericEntry, password: Secret) {
        let matching = genericEntries(service: service, in: .both).filter { account == nil || $0.account == account }
        let who = account.map { "\(InertText.quoted($0)) of " } ?? ""
        guard let entry = matching.first else {
            throw KeychainError.notFound("no saved password for \(who)service \(InertText.quoted(service))")
        }
        let accounts = Set(matching.map(\.account))
        guard accounts.count == 1 else {
            throw KeychainError.param("service \(InertText.quoted(service)) has several accounts: \(accounts.sorted().map(InertText.quoted).joined(separator: ", ")); give the ACCOUNT")
        }
        let found = try release(entry.id, in: entry.store,
                                reason: "use the password for \(InertText.quoted(entry.account)) of service \(InertText.quoted(service))")
        guard let password = found?.password else {
            throw KeychainError.notFound("no saved password for \(who)service \(InertText.quoted(service))")
        }
        return (entry, password)
    }

    func reveal(_ entry: GenericEntry, for purpose: RevealPurpose) throws -> Secret {
        let what = "the password for \(InertText.quoted(entry.account)) of service \(InertText.quoted(entry.service))"
        guard let password = try release(entry.id, in: entry.store, reason: "\(purpose.rawValue) \(what)")?.password else {
            throw KeychainError.notFound("\(what) is gone")
        }
        return password
    }
}

extension ShelfWriter {
    func addGeneric(service: String, account: String, password: Secret, synchronizable: Bool,
                    label: String?, comment: String?) throws -> (outcome: AddOutcome, store: Store) {
        try Self.checkService(service)
        guard !account.isEmpty else { throw KeychainError.param("the account is empty") }
        let what = "the password for \(InertText.quoted(account)) of service \(InertText.quoted(service))"
        try PasswordText.validate(password, for: what)
        let query = ItemQuery(itemClass: .genericPassword, account: account, service: service)
        let now = Date()
        return try mutate { items, consent in
            guard let store = Store.allCases.first(where: { items[$0].firstIndex(inPlace: query.matches) != nil }) else {
                let store: Store = synchronizable ? .shared : .local
                try Self.editing(store, of: &items) { local in
                    try local.add(Item(itemClass: .genericPassword, account: account, service: service, protocol: "",
                                       authenticationType: "", label: label ?? "", comment: comment ?? "",
                                       synchronizable: synchronizable, password: password), now: now)
                }
                return (.added, store)
            }
            let index = items[store].firstIndex(inPlace: query.matches)!
            let existing = items[store][index]
            let changesPassword = existing.password != password
            if changesPassword, consent.ask(.updateService(service: service, account: account)) == .declined {
                throw KeychainError.canceled("updating \(what) was declined")
            }
            let relabels = label.map { $0 != existing.label } ?? false, renotes = comment.map { $0 != existing.comment } ?? false
            guard changesPassword || relabels || renotes else { return (.unchanged, store) }
            try Self.editing(store, of: &items) { local in
                _ = try local.update(.item(existing.id), with: ItemChanges(label: label, comment: comment,
                                                                           password: changesPassword ? password : nil), now: now)
            }
            return (.updated, store)
        }
    }

    func deleteGeneric(service: String, account: String) throws -> Store {
        try Self.checkService(service)
        let query = ItemQuery(itemClass: .genericPassword, account: account, service: service)
        let now = Date()
        return try mutate { items, consent in
            guard let store = Store.allCases.first(where: { items[$0].firstIndex(inPlace: query.matches) != nil }) else {
                throw KeychainError.notFound("no saved password for \(InertText.quoted(account)) of service \(InertText.quoted(service))")
            }
            guard consent.ask(.deleteService(service: service, account: account)) != .declined else {
                throw KeychainError.canceled("deleting the password for \(InertText.quoted(account)) of service \(InertText.quoted(service)) was declined")
            }
            try Self.editing(store, of: &items) { _ = try $0.delete(query, now: now) }
            return store
        }
    }

    private static func checkService(_ service: String) throws {
        guard !service.isEmpty else { throw KeychainError.param("the service name is empty") }
        guard !Keyshelf.isReservedService(service) else {
            throw KeychainError.param("the service \(InertText.quoted(service)) is reserved for keyshelf's own data (services starting \"keyshelf.\")")
        }
    }
}
