import Foundation
import KeyshelfCrypto
import KeyshelfVault

extension Keyshelf {
    // MARK: - Changes

    /// `keyshelf add`: saves `password` for `account` at `server` in `store`.
    ///
    /// Shared: the Shared Web Credentials `add` rules (DESIGN §3). Local: the
    /// same shape with Keychain items: new → added; same password → unchanged;
    /// another password → consent `.update` first.
    /// - Parameters:
    ///   - accessible: `…ThisDeviceOnly` is refused for the shared store.
    ///   - accessControl: `.userPresence` makes reveal re-ask the master password (local only).
    /// - Throws: `errSecUserCanceled` (declined, nothing changed), `errSecParam`
    ///   (empty account, `…ThisDeviceOnly` or `userPresence` for shared), vault errors.
    @discardableResult
    public func add(
        server: ServerName, account: String, password: Secret, to store: Store, comment: String? = nil,
        accessible: Accessible = .whenUnlocked, accessControl: AccessControl = .none
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
            switch store {
            case .shared:
                // Moved out and back (also when `add` throws), so appending to a large store copies nothing.
                var shared = SharedWebCredentials()
                swap(&shared.items, &items.shared)
                defer { swap(&shared.items, &items.shared) }
                return try shared.add(server: server, account: account, password: password, consent: consent, comment: comment, now: now)
            case .local:
                return try Self.editing(.local, of: &items) { local in
                    try Self.upsertLocal(&local, server: server, account: account, password: password, comment: comment,
                                         accessible: accessible, accessControl: accessControl, consent: consent, now: now)
                }
            }
        }
    }

    /// Edits `entry`: a new password asks consent (`.update`) once and also
    /// goes to the same account at the same server in the other store, when
    /// it holds one (DESIGN §4, issue 13 rule 2); removing `userPresence`
    /// re-asks the master password; other fields change directly.
    /// - Throws: `errSecUserCanceled`, `errSecAuthFailed`, `errSecItemNotFound`
    ///   (entry gone), `errSecDuplicateItem` (renamed onto an existing account), `errSecParam`.
    public func update(_ entry: CredentialEntry, _ changes: CredentialChanges) throws {
        if entry.accessControl == .userPresence, let control = changes.accessControl, control != .userPresence {
            try withUserPresence(reason: "remove the master-password check from \(InertText.quoted(entry.account)) on \(entry.server.qualified)") { check in
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
                }
                if let password = changes.password, current.password != password || twinDiffers,
                   consent.ask(.update(server: entry.server, account: current.account)) == .declined {
                    throw KeychainError.canceled("updating the password for \(InertText.quoted(current.account)) on \(entry.server.qualified) was declined")
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

    /// Deletes `entry` after consent (`.delete`), leaving a tombstone (DESIGN §6).
    /// - Throws: `errSecUserCanceled`, `errSecItemNotFound`.
    public func delete(_ entry: CredentialEntry) throws {
        let now = Date()
        try mutate { items, consent in try Self.editing(entry.store, of: &items) { store in
            guard consent.ask(.delete(server: entry.server, account: entry.account)) != .declined else {
                throw KeychainError.canceled("deleting the password for \(InertText.quoted(entry.account)) on \(entry.server.qualified) was declined")
            }
            try store.delete(.item(entry.id), now: now)
        } }
    }

    /// `keyshelf rm`: deletes `account` at `server` from the stores in
    /// `filter`, asking consent (`.delete`) once.
    /// - Returns: the stores it was deleted from (one or both, local first).
    /// - Throws: `errSecItemNotFound` when no store has it, `errSecUserCanceled`.
    @discardableResult
    public func delete(server: ServerName, account: String, in filter: StoreFilter = .both) throws -> [Store] {
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

    /// Login-flow step 5 (DESIGN §4) and the git helper's `store`: saves the
    /// credential to the local store and, through `SharedWebCredentials.add`,
    /// to the shared credentials. Changing an existing password asks consent
    /// (`.update`) once for both stores; a store whose update is declined is
    /// left unchanged and reported as nil. `oauth` (the git helper's, nil
    /// elsewhere) replaces the item's OAuth attributes; a change that only
    /// rotates an OAuth token needs no consent (`OAuthAttributes.rotates`).
    /// An account that signs in with Apple in either store is left as it is
    /// in both (`.unchanged`): no password is saved for it anywhere.
    /// - Throws: `errSecParam` (empty account), vault errors.
    @discardableResult
    public func save(server: ServerName, account: String, password: Secret, oauth: OAuthAttributes? = nil) throws -> SaveResult {
        let now = Date()
        return try mutate { items, consent in
            var result = SaveResult()
            if Self.hasAppleAccount(account, at: server, in: items.local) || Self.hasAppleAccount(account, at: server, in: items.shared) {
                return SaveResult(local: .unchanged, shared: .unchanged)
            }
            var local = LocalStore(items: items.local)
            do {
                result.local = try Self.upsertLocal(&local, server: server, account: account, password: password, comment: nil,
                                                    accessible: .whenUnlocked, accessControl: .none, oauth: oauth, consent: consent, now: now)
                items.local = local.items
            } catch let error as KeychainError where error.status == .userCanceled {
                result.local = nil
            }
            var shared = SharedWebCredentials(items: items.shared)
            do {
                result.shared = try shared.add(server: server, account: account, password: password, consent: consent, oauth: oauth, now: now)
                items.shared = shared.items
            } catch let error as KeychainError where error.status == .userCanceled {
                result.shared = nil
            }
            return result
        }
    }

    /// Runs the login flow (DESIGN §4) with this facade's consent; see `LoginFlow`.
    public func login(server: ServerName, account: String? = nil, prompt: any LoginPrompt,
                      check: (any CredentialCheck)? = nil) throws -> LoginResult {
        try LoginFlow(prompt: prompt, check: check).run(self, server: server, account: account)
    }

    /// A new `xxx-xxx-xxx-xxx` password (DESIGN §3).
    public static func generatePassword() -> Secret {
        PasswordGenerator.generate()
    }

    /// The item that `upsertLocal` would put after the store's last one: an
    /// account not saved yet at `server`, and no tombstone to revive. Nil
    /// when it would change an existing item instead. Changes nothing.
    /// - Throws: what `upsertLocal` throws before changing anything.
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

    static func upsertLocal(
        _ store: inout LocalStore, server: ServerName, account: String, password: Secret, comment: String?,
        accessible: Accessible, accessControl: AccessControl, oauth: OAuthAttributes? = nil, consent: any Consent, now: Date
    ) throws -> AddOutcome {
        try PasswordText.validate(password, for: "the password for \(InertText.quoted(account)) on \(server.qualified)")
        let query = ItemQuery.internet(server, account: account)
        guard let index = store.items.firstIndex(where: query.matches) else {
            var item = localRecord(server: server, account: account, password: password, comment: comment,
                                   accessible: accessible, accessControl: accessControl)
            oauth?.apply(to: &item)
            try store.add(item, now: now)
            return .added
        }
        let existing = store.items[index]
        if existing.password == password {
            if let comment, comment != existing.comment {
                try store.update(query, with: ItemChanges(comment: comment), now: now)
            }
            return OAuthAttributes.update(&store.items, at: index, to: oauth, now: now) ? .updated : .unchanged
        }
        guard OAuthAttributes.rotates(existing, to: oauth) || consent.ask(.update(server: server, account: account)) != .declined else {
            throw KeychainError.canceled("updating the password for \(InertText.quoted(account)) on \(server.qualified) was declined")
        }
        try store.update(query, with: ItemChanges(comment: comment, password: password), now: now)
        _ = OAuthAttributes.update(&store.items, at: index, to: oauth, now: now)
        return .updated
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

    /// True when at least one store's update was declined.
    public var declined: Bool { local == nil || shared == nil }
}
