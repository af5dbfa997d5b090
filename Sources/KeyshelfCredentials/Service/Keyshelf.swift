import Foundation
import KeyshelfCrypto
import KeyshelfVault

/// The facade the CLI and TUI share: listings, search and the consent-gated
/// operations over an unlocked vault (DESIGN §2–§5, §8).
///
/// Reads come from a snapshot loaded at `init` / `reload()` (and refreshed
/// after each change); listings use a sorted `Listing` and search adds
/// precomputed search keys, each built on first use after each change. Every change runs the
/// rule first on freshly loaded items, so consent dialogs appear while no
/// vault lock is held, then again inside the vault's locked
/// read-modify-write, replaying the recorded answers. Errors are `KeychainError` (with the `errSec…`
/// status) or the vault's own errors.
public final class Keyshelf {
    /// Where items are kept.
    public let vault: any CredentialVault
    /// Answers consent requests (DESIGN §5): a dialog, `/dev/tty`, `DeclineAll` or `ApproveAll`.
    public var consent: any Consent
    /// Re-asks the master password for `userPresence` items; nil means nobody
    /// can be asked, so such secrets are not released.
    public var userPresence: (any UserPresencePrompt)?

    var snapshot: VaultContents
    /// `vault.revision` when `snapshot` was taken.
    private var snapshotRevision: Int
    /// Built on the first listing or search, so one-shot commands (`get`,
    /// `add`, `rm`, `list SERVER`, the git helper) never pay for it.
    private var cachedListing: Listing?
    private var listing: Listing {
        if let cachedListing { return cachedListing }
        let built = Listing(snapshot)
        cachedListing = built
        return built
    }
    /// Built on the first search: listings do not need the lower-cased keys.
    private var cachedIndex: SearchIndex?
    private var index: SearchIndex {
        if let cachedIndex { return cachedIndex }
        let built = SearchIndex(listing)
        cachedIndex = built
        return built
    }

    /// Loads the items of `vault`.
    /// - Throws: the vault's error when it cannot be read.
    public init(vault: any CredentialVault, consent: any Consent = DeclineAll(), userPresence: (any UserPresencePrompt)? = nil) throws {
        self.vault = vault
        self.consent = consent
        self.userPresence = userPresence
        snapshot = try vault.loadItems()
        snapshotRevision = vault.revision
    }

    /// Reads the vault again (another process may have changed it).
    public func reload() throws {
        adopt(try vault.loadItems())
    }

    /// Like `reload()`, but keeps the snapshot and its listing and search
    /// index when the vault's items did not change (for a long-lived facade:
    /// the agent's, which answers many commands from one snapshot).
    public func refresh() throws {
        let items = try vault.loadItems()
        guard vault.revision != snapshotRevision else { return }
        adopt(items)
    }

    /// The items of the current snapshot, tombstones included (for export and merge).
    public var items: VaultContents { snapshot }

    // MARK: - Listing and search (no secrets)

    /// The domains, sorted by display host then port, with account counts per store.
    public func domains(in filter: StoreFilter = .both) -> [DomainSummary] {
        filter == .both ? listing.domains : listing.domains.compactMap { restrict($0, to: filter) }
    }

    /// The accounts of `server` (sorted by account, local before shared).
    public func accounts(of server: ServerName, in filter: StoreFilter = .both) -> [CredentialEntry] {
        // One pass over the snapshot: one domain needs no sorted listing.
        Listing.entries(of: server, in: snapshot).filter { filter.contains($0.store) }
    }

    /// Every live entry, sorted by server then account.
    public func entries(in filter: StoreFilter = .both) -> [CredentialEntry] {
        filter == .both ? listing.entries : listing.entries.filter { filter.contains($0.store) }
    }

    /// Entries whose server (Unicode or A-label), port, account, label or
    /// notes contain `text`, case-insensitively; all entries for "".
    public func search(_ text: String, in filter: StoreFilter = .both) -> [CredentialEntry] {
        let found = index.matches(text)
        let entries = listing.entries
        return filter == .both
            ? found.map { entries[$0] }
            : found.compactMap { filter.contains(entries[$0].store) ? entries[$0] : nil }
    }

    /// The domains with at least one entry matching `text` (see `search`).
    public func searchDomains(_ text: String, in filter: StoreFilter = .both) -> [DomainSummary] {
        let found = index.matches(text)
        let listing = self.listing
        var out: [DomainSummary] = []
        var previous = -1
        // Matches are ascending and a domain's entries are contiguous: each domain appears in one run.
        for i in found where filter.contains(listing.entries[i].store) {
            let domain = listing.domain(ofEntry: i)
            guard domain != previous else { continue }
            previous = domain
            if let summary = restrict(listing.domains[domain], to: filter) { out.append(summary) }
        }
        return out
    }

    // MARK: - Reading secrets

    /// `keyshelf get`: the password for `server` (and `account`), local store
    /// first, then shared credentials (DESIGN §8). A shared password is
    /// released only with consent; a `userPresence` item re-asks the master password.
    /// - Throws: `errSecItemNotFound` when no store has it; `errSecUserCanceled`
    ///   when the release or the master-password dialog is declined;
    ///   `errSecAuthFailed` when the master password was wrong. A Sign in
    ///   with Apple account has no password: `errSecItemNotFound` saying so.
    public func get(server: ServerName, account: String? = nil, in filter: StoreFilter = .both) throws -> CredentialRecord {
        if filter.contains(.local), let record = try localLookup(server: server, account: account, passwordsOnly: true) {
            return record
        }
        if filter.contains(.shared) {
            let released = try SharedWebCredentials(items: snapshot.shared)
                .request(server: server, account: account, consent: consent)
            if let first = released.first {
                return CredentialRecord(first)
            }
        }
        if let apple = noPasswordToRelease(server: server, account: account, in: filter) { throw apple }
        let who = account.map { "\(InertText.quoted($0)) on " } ?? ""
        throw KeychainError.notFound("no saved password for \(who)\(server.display)")
    }

    /// Login-flow steps 1–2 (DESIGN §4): like `get`, but a declined release
    /// or nothing found gives nil instead of an error. A Sign in with Apple
    /// account is found like a password one (its record has `signInWith`
    /// `.apple` and no password; `sharedAppleAccount`), unless `passwordsOnly`.
    /// - Throws: `errSecUserCanceled` / `errSecAuthFailed` from a `userPresence` item.
    public func lookup(server: ServerName, account: String? = nil, passwordsOnly: Bool = false) throws -> CredentialRecord? {
        if let record = try localLookup(server: server, account: account, passwordsOnly: passwordsOnly) { return record }
        let released = (try? SharedWebCredentials(items: snapshot.shared)
            .request(server: server, account: account, consent: consent)) ?? []
        if let first = released.first { return CredentialRecord(first) }
        return passwordsOnly ? nil : sharedAppleAccount(server: server, account: account)
    }

    /// The password of `entry`, for the TUI's reveal and copy. The user is
    /// browsing their own vault, so no release consent is asked; a
    /// `userPresence` item re-asks the master password (DESIGN §2, §7).
    /// - Parameter purpose: what the caller does with it, named in the master-password
    ///   prompt's reason ("copy the password for …").
    /// - Throws: `errSecItemNotFound` when the entry is gone;
    ///   `errSecUserCanceled` / `errSecAuthFailed` from the master-password check.
    public func reveal(_ entry: CredentialEntry, for purpose: RevealPurpose = .show) throws -> Secret {
        let store = LocalStore(items: snapshot[entry.store])
        let found = try withUserPresence(reason: "\(purpose.rawValue) the password for \(InertText.quoted(entry.account)) on \(entry.server.display)") { check in
            try store.copyMatching(.item(entry.id), limit: .one, returnData: true, userPresence: check)
        }
        guard let password = found.first?.password else {
            if found.first?.signInWithApple != nil { throw Self.signsInWithApple(entry.account, entry.server) }
            throw KeychainError.notFound("the password for \(InertText.quoted(entry.account)) on \(entry.server.display) is gone")
        }
        return password
    }

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

    /// Edits `entry`: a new password asks consent (`.update`); removing
    /// `userPresence` re-asks the master password; other fields change directly.
    /// - Throws: `errSecUserCanceled`, `errSecAuthFailed`, `errSecItemNotFound`
    ///   (entry gone), `errSecDuplicateItem` (renamed onto an existing account), `errSecParam`.
    public func update(_ entry: CredentialEntry, _ changes: CredentialChanges) throws {
        if entry.accessControl == .userPresence, let control = changes.accessControl, control != .userPresence {
            try withUserPresence(reason: "remove the master-password check from \(InertText.quoted(entry.account)) on \(entry.server.display)") { check in
                guard check() else { throw KeychainError(.authFailed, "the master password was not confirmed") }
            }
        }
        let now = Date()
        try mutate { items, consent in try Self.editing(entry.store, of: &items) { store in
            guard let index = store.items.firstIndex(inPlace: ItemQuery.item(entry.id).matches) else {
                throw KeychainError.notFound("the password for \(InertText.quoted(entry.account)) on \(entry.server.display) is gone")
            }
            let current = store.items[index]
            if entry.store == .shared && changes.accessControl == .userPresence {
                throw KeychainError.param("shared credentials cannot require user presence")
            }
            if changes.password != nil && current.signInWithApple != nil {
                throw KeychainError.param("\(InertText.quoted(current.account)) on \(entry.server.display) signs in with Apple and has no password to change")
            }
            if let password = changes.password {
                try PasswordText.validate(password, for: "the password for \(InertText.quoted(current.account)) on \(entry.server.display)")
            }
            if let password = changes.password, current.password != password,
               consent.ask(.update(server: entry.server, account: current.account)) == .declined {
                throw KeychainError.canceled("updating the password for \(InertText.quoted(current.account)) on \(entry.server.display) was declined")
            }
            try store.update(.item(entry.id), with: ItemChanges(
                account: changes.account, label: changes.label, comment: changes.comment,
                accessControl: changes.accessControl, password: changes.password,
                ignoredFindings: changes.ignoredFindings), now: now)
        } }
    }

    /// Deletes `entry` after consent (`.delete`), leaving a tombstone (DESIGN §6).
    /// - Throws: `errSecUserCanceled`, `errSecItemNotFound`.
    public func delete(_ entry: CredentialEntry) throws {
        let now = Date()
        try mutate { items, consent in try Self.editing(entry.store, of: &items) { store in
            guard consent.ask(.delete(server: entry.server, account: entry.account)) != .declined else {
                throw KeychainError.canceled("deleting the password for \(InertText.quoted(entry.account)) on \(entry.server.display) was declined")
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
                throw KeychainError.notFound("no saved password for \(InertText.quoted(account)) on \(server.display)")
            }
            guard consent.ask(.delete(server: server, account: account)) != .declined else {
                throw KeychainError.canceled("deleting the password for \(InertText.quoted(account)) on \(server.display) was declined")
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

    // MARK: - Internals

    private func adopt(_ items: VaultContents) {
        snapshot = items
        snapshotRevision = vault.revision
        cachedListing = nil
        cachedIndex = nil
    }

    /// Runs `body` on the current items (asking consent, no lock held), then
    /// in the vault's locked `modify` with the recorded answers. A consent
    /// policy that never waits for a person skips the first run (it only
    /// exists so that no dialog waits while the vault is locked).
    func mutate<T>(_ body: (inout VaultContents, any Consent) throws -> T) throws -> T {
        let recorded = RecordedConsent(consent)
        if !consent.answersWithoutWaiting {
            // Fresh items, so the questions match what the locked run will find
            // (a `VaultSession` re-reads only the files that changed on disk).
            var dryRun = try vault.loadItems()
            _ = try body(&dryRun, recorded)
        }
        return try withoutSnapshot { try vault.modifyItems { try body(&$0, recorded) } }
    }

    /// Runs a locked write holding no reference to the vault's item arrays,
    /// so the vault edits and saves them in place: a second reference would
    /// make appending to a large store (and its re-encoding) copy every item.
    /// Saved or not, the snapshot is then what the vault now has (or, when it
    /// cannot say, the next `refresh()` asks again).
    private func withoutSnapshot<T>(_ write: () throws -> T) rethrows -> T {
        adopt(VaultContents())
        defer {
            if let items = try? vault.loadItems() {
                adopt(items)
            } else {
                snapshotRevision = -1
            }
        }
        return try write()
    }

    /// Runs `body` on `items[store]` moved into a `LocalStore` and back (also
    /// when it throws; `mutate` then discards the edit), so editing a large
    /// store copies no item.
    static func editing<T>(_ store: Store, of items: inout VaultContents, _ body: (inout LocalStore) throws -> T) rethrows -> T {
        var local = LocalStore()
        func exchange() {
            switch store {
            case .local: swap(&local.items, &items.local)
            case .shared: swap(&local.items, &items.shared)
            }
        }
        exchange()
        defer { exchange() }
        return try body(&local)
    }

    private func localLookup(server: ServerName, account: String?, passwordsOnly: Bool) throws -> CredentialRecord? {
        let store = LocalStore(items: snapshot.local)
        let query = ItemQuery.internet(server, account: account)
        guard let first = (try? store.copyMatching(query))?.filter({ !passwordsOnly || $0.signInWithApple == nil })
            .min(by: { $0.account < $1.account }) else { return nil }
        let found = try withUserPresence(reason: "use the password for \(InertText.quoted(first.account)) on \(server.display)") { check in
            try store.copyMatching(.item(first.id), limit: .one, returnData: true, userPresence: check)
        }
        return found.first.map { CredentialRecord(local: $0, server: server) }
    }

    /// Gives `body` a user-presence check; a canceled master-password dialog
    /// becomes `errSecUserCanceled`, a wrong password `errSecAuthFailed`.
    func withUserPresence<T>(reason: String, _ body: (() -> Bool) throws -> T) throws -> T {
        var canceled = false
        let check = { [userPresence, vault] () -> Bool in
            guard let typed = userPresence?.askMasterPassword(reason: reason) else {
                canceled = true
                return false
            }
            return vault.verifyPassword(typed)
        }
        do {
            return try body(check)
        } catch let error as KeychainError where error.status == .authFailed && canceled {
            throw KeychainError.canceled("the master password was not entered")
        }
    }

    private func restrict(_ domain: DomainSummary, to filter: StoreFilter) -> DomainSummary? {
        var d = domain
        if !filter.contains(.local) { d.localCount = 0 }
        if !filter.contains(.shared) { d.sharedCount = 0 }
        return d.accountCount > 0 ? d : nil
    }

    /// The item that `upsertLocal` would put after the store's last one: an
    /// account not saved yet at `server`, and no tombstone to revive. Nil
    /// when it would change an existing item instead. Changes nothing.
    /// - Throws: what `upsertLocal` throws before changing anything.
    static func appendedLocalItem(
        _ store: LocalStore, server: ServerName, account: String, password: Secret, comment: String?,
        accessible: Accessible, accessControl: AccessControl, now: Date
    ) throws -> Item? {
        try PasswordText.validate(password, for: "the password for \(InertText.quoted(account)) on \(server.display)")
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
        try PasswordText.validate(password, for: "the password for \(InertText.quoted(account)) on \(server.display)")
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
            throw KeychainError.canceled("updating the password for \(InertText.quoted(account)) on \(server.display) was declined")
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
