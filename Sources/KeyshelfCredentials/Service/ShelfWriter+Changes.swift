import Foundation
import KeyshelfCrypto
import KeyshelfVault

extension ShelfWriter {
    // MARK: - Changes

    func add(
        server: ServerName, account: String, password: Secret, to store: Store, comment: String?,
        accessible: Accessible, accessControl: AccessControl
    ) throws -> AddOutcome {
        let now = Date()
        if store == .shared {
            guard !accessible.isThisDeviceOnly else {
                throw KeychainError.param("\(accessible) items stay on this device and cannot be shared credentials")
            }
            guard accessControl == .none else {
                throw KeychainError.param("shared credentials cannot require user presence")
            }
        }
        // A credential not saved yet goes after the store's last item: the
        // vault encodes and writes that item only (docs/vault-format.md, "Appendices").
        let appended = try withoutSnapshot {
            try vault.addItem(to: store) { items in
                switch store {
                case .shared:
                    try SharedWebCredentials(items: items.shared).appendedItem(server: server, account: account, password: password, comment: comment, now: now)
                case .local:
                    try Self.appendedLocalItem(LocalStore(items: items.local), server: server, account: account, password: password,
                                               comment: comment, accessible: accessible, accessControl: accessControl, now: now)
                }
            }
        }
        if appended { return .added }
        return try mutate { items, consent in
            try Self.refusePassword(onAppleAccount: account, at: server, in: items[store])
            return try Self.save(password, server: server, account: account, comment: comment, oauth: nil, in: store, of: &items,
                                 accessible: accessible, accessControl: accessControl, consent: consent, now: now)
        }
    }

    func update(_ entry: CredentialEntry, _ changes: CredentialChanges) throws {
        if entry.accessControl == .userPresence, let control = changes.accessControl, control != .userPresence {
            try reader.withUserPresence(reason: "remove the master-password check from \(InertText.quoted(entry.account)) on \(entry.server.qualified)") { check in
                guard check() else { throw KeychainError(.authFailed, "the master password was not confirmed") }
            }
        }
        let now = Date()
        try mutate { items, consent in
            let other: Store = entry.store == .local ? .shared : .local
            let twin = changes.password == nil ? nil
                : items[other].firstIndex(inPlace: ItemQuery.internet(entry.server, account: entry.account).matches)
            let twinDiffers = twin.map { items[other][$0].password != changes.password } ?? false
            try Self.editing(entry.store, of: &items) { store in
                guard let index = store.items.firstIndex(inPlace: ItemQuery.item(entry.id).matches) else {
                    throw KeychainError.notFound("the password for \(InertText.quoted(entry.account)) on \(entry.server.qualified) is gone")
                }
                let current = store.items[index]
                if entry.store == .shared && changes.accessControl == .userPresence {
                    throw KeychainError.param("shared credentials cannot require user presence")
                }
                if changes.password != nil && current.signInWithApple != nil {
                    throw KeychainError.param("\(InertText.quoted(current.account)) on \(entry.server.qualified) signs in with Apple and has no password to change")
                }
                if let password = changes.password {
                    try PasswordText.validate(password, for: "the password for \(InertText.quoted(current.account)) on \(entry.server.qualified)")
                    if current.password != password || twinDiffers {
                        try PasswordUpdateConsent.confirm(server: entry.server, account: current.account, consent: consent)
                    }
                }
                try store.update(.item(entry.id), with: ItemChanges(
                    account: changes.account, label: changes.label, comment: changes.comment,
                    accessControl: changes.accessControl, password: changes.password,
                    ignoredFindings: changes.ignoredFindings), now: now)
            }
            if let twin, twinDiffers, let password = changes.password {
                try Self.editing(other, of: &items) { store in
                    _ = try store.update(.item(store.items[twin].id), with: ItemChanges(password: password), now: now)
                }
            }
        }
    }

    func delete(_ entry: CredentialEntry) throws {
        let now = Date()
        try mutate { items, consent in try Self.editing(entry.store, of: &items) { store in
            guard consent.ask(.delete(server: entry.server, account: entry.account)) != .declined else {
                throw KeychainError.canceled("deleting the password for \(InertText.quoted(entry.account)) on \(entry.server.qualified) was declined")
            }
            try store.delete(.item(entry.id), now: now)
        } }
    }

    func delete(server: ServerName, account: String, in filter: StoreFilter) throws -> [Store] {
        let now = Date()
        return try mutate { items, consent in
            let query = ItemQuery.internet(server, account: account)
            let stores = filter.stores.filter { items[$0].contains(where: query.matches) }
            guard !stores.isEmpty else {
                throw KeychainError.notFound("no saved password for \(InertText.quoted(account)) on \(server.qualified)")
            }
            guard consent.ask(.delete(server: server, account: account)) != .declined else {
                throw KeychainError.canceled("deleting the password for \(InertText.quoted(account)) on \(server.qualified) was declined")
            }
            var deleted: [Store] = []
            for store in stores where try Self.editing(store, of: &items, { try $0.delete(query, now: now) }) > 0 {
                deleted.append(store)
            }
            return deleted
        }
    }

    func save(server: ServerName, account: String, password: Secret, oauth: OAuthAttributes?) throws -> SaveResult {
        let now = Date()
        return try mutate { items, consent in
            if Self.hasAppleAccount(account, at: server, in: items.local) || Self.hasAppleAccount(account, at: server, in: items.shared) {
                return SaveResult(local: .unchanged, shared: .unchanged)
            }
            var result = SaveResult()
            for store in Store.allCases {
                do {
                    result[store] = try Self.save(password, server: server, account: account, comment: nil, oauth: oauth, in: store, of: &items,
                                                  accessible: .whenUnlocked, accessControl: .none, consent: consent, now: now)
                } catch let error as KeychainError where error.status == .userCanceled {
                    result[store] = nil
                }
            }
            return result
        }
    }

    /// Saves `password` for `account` at `server` in `store` of `items` by
    /// the one rule of both stores (`PasswordUpdateConsent`): shared through
    /// `SharedWebCredentials.add`, local with a Keychain item of `accessible`
    /// and `accessControl`; `lookup` finds the saved item (`ShelfWriter.mutate(near:)`).
    /// - Throws: `errSecUserCanceled` (declined, nothing changed), `errSecParam`, `errSecDuplicateItem`.
    static func save(
        _ password: Secret, server: ServerName, account: String, comment: String?, oauth: OAuthAttributes?,
        in store: Store, of items: inout VaultContents, accessible: Accessible, accessControl: AccessControl,
        consent: any Consent, now: Date, lookup: HostLookup = .scanning
    ) throws -> AddOutcome {
        switch store {
        case .shared:
            // Moved out and back (also when `add` throws), so appending to a large store copies nothing.
            var shared = SharedWebCredentials()
            swap(&shared.items, &items.shared)
            defer { swap(&shared.items, &items.shared) }
            return try shared.add(server: server, account: account, password: password, consent: consent, comment: comment, oauth: oauth,
                                  now: now, lookup: lookup)
        case .local:
            try PasswordText.validate(password, for: "the password for \(InertText.quoted(account)) on \(server.qualified)")
            let record = localRecord(server: server, account: account, password: password, comment: comment,
                                     accessible: accessible, accessControl: accessControl)
            return try editing(.local, of: &items) { local in
                try PasswordUpdateConsent.save(password, server: server, account: account, comment: comment, oauth: oauth,
                                               newItem: record, in: &local, consent: consent, now: now, lookup: lookup, of: .local)
            }
        }
    }

    /// The item that `save` would put after the local store's last one: an
    /// account not saved yet at `server`, and no tombstone to revive. Nil
    /// when it would change an existing item instead. Changes nothing.
    /// - Throws: what `save` throws before changing anything.
    static func appendedLocalItem(
        _ store: LocalStore, server: ServerName, account: String, password: Secret, comment: String?,
        accessible: Accessible, accessControl: AccessControl, now: Date
    ) throws -> Item? {
        try PasswordText.validate(password, for: "the password for \(InertText.quoted(account)) on \(server.qualified)")
        return try store.appended(localRecord(server: server, account: account, password: password, comment: comment,
                                              accessible: accessible, accessControl: accessControl),
                                  unlessAny: .internet(server, account: account), now: now)
    }

    private static func localRecord(
        server: ServerName, account: String, password: Secret, comment: String?, accessible: Accessible, accessControl: AccessControl
    ) -> Item {
        Item(itemClass: .internetPassword, account: account, server: server.host, protocol: server.scheme, port: server.port,
             comment: comment ?? "", accessible: accessible, accessControl: accessControl, password: password)
    }
}

/// What `Keyshelf.save` did in each store; nil where the update was declined.
public struct SaveResult: Sendable, Equatable {
    public var local: AddOutcome?
    public var shared: AddOutcome?

    public init(local: AddOutcome? = nil, shared: AddOutcome? = nil) {
        self.local = local
        self.shared = shared
    }

    /// The outcome in `store`; nil where its update was declined.
    subscript(store: Store) -> AddOutcome? {
        get { store == .local ? local : shared }
        set { if store == .local { local = newValue } else { shared = newValue } }
    }

    /// True when at least one store's update was declined.
    public var declined: Bool { local == nil || shared == nil }
}
