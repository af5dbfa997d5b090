import Foundation
import KeyshelfCrypto
import KeyshelfVault

/// The reads of the facade, answered by its `ShelfReader`.
extension Keyshelf {
    /// Reads the vault again (another process may have changed it).
    public func reload() throws {
        try reader.reload()
    }

    /// Like `reload()`, but keeps the snapshot and its listing and search
    /// index when the vault's items did not change (for a long-lived facade:
    /// the agent's, which answers many commands from one snapshot).
    /// - Returns: whether the items changed (another process wrote the vault: a CLI
    ///   `add`, the agent, a sync), so a long-lived view redraws (issue 13 rule 7).
    @discardableResult
    public func refresh() throws -> Bool {
        try reader.refresh()
    }

    /// The items of the current snapshot, tombstones included (for export and merge).
    public var items: VaultContents { reader.snapshot }

    // MARK: - Listing and search (no secrets)

    /// The domains, sorted by display host then port, with account counts per store.
    public func domains(in filter: StoreFilter = .both) -> [DomainSummary] {
        reader.domains(in: filter)
    }

    /// The accounts of `server` (sorted by account, local before shared).
    public func accounts(of server: ServerName, in filter: StoreFilter = .both) -> [CredentialEntry] {
        reader.accounts(of: server, in: filter)
    }

    /// Every live entry, sorted by server then account.
    public func entries(in filter: StoreFilter = .both) -> [CredentialEntry] {
        reader.entries(in: filter)
    }

    /// Entries whose server (Unicode or A-label), port, account, label or
    /// notes contain `text`, case-insensitively; all entries for "".
    public func search(_ text: String, in filter: StoreFilter = .both) -> [CredentialEntry] {
        reader.search(text, in: filter)
    }

    /// Where the entries `search(text)` returns sit in `entries()`: positions,
    /// ascending; every position for "". For a caller that holds `entries()`
    /// already (the TUI filters 100k credentials per keystroke) and would
    /// otherwise copy every match. Valid until the snapshot changes (a write,
    /// `reload()` or a `refresh()` that returned true).
    public func searchPositions(_ text: String) -> [Int] {
        reader.searchPositions(text)
    }

    /// The domains with at least one entry matching `text` (see `search`).
    public func searchDomains(_ text: String, in filter: StoreFilter = .both) -> [DomainSummary] {
        reader.searchDomains(text, in: filter)
    }

    /// The live generic passwords of the stores in `filter` (of `service`
    /// when given), reserved services left out; sorted by service, then
    /// account, local before shared (issue 13 rule 4).
    public func genericEntries(service: String? = nil, in filter: StoreFilter = .both) -> [GenericEntry] {
        reader.genericEntries(service: service, in: filter)
    }

    /// The generic passwords of `genericEntries(in: filter)` whose service,
    /// account, label or notes contain `text`, case-insensitively: the
    /// matching of `search` (one index, the same case folding, never across
    /// two entries), so `keyshelf search` and the TUI's `/` find the same; all for "".
    public func searchGenerics(_ text: String, in filter: StoreFilter = .both) -> [GenericEntry] {
        reader.searchGenerics(text, in: filter)
    }

    /// Where the entries `searchGenerics(text)` returns sit in
    /// `genericEntries()`: positions, ascending (as `searchPositions` for
    /// `entries()`). Valid until the snapshot changes.
    public func searchGenericPositions(_ text: String) -> [Int] {
        reader.searchGenericPositions(text)
    }

    // MARK: - Lookups

    /// `keyshelf get`: the password for `server` (and `account`), local store
    /// first, then shared credentials (DESIGN §8). A shared password is
    /// released only with consent; a `userPresence` item re-asks the master password.
    ///
    /// A `server` without a scheme matches every protocol (issue 13 rule 1);
    /// when its matches lie at several servers (`http://x` and `https://x`)
    /// nothing is picked silently. Without `account`, several accounts are
    /// put to the user in the release sheet, one chosen (issue 13 rule 6).
    /// - Throws: `errSecItemNotFound` when no store has it; `errSecParam`
    ///   (exit 2) naming the servers when the matches lie at several, or the
    ///   accounts when several match and the answer (`--yes`) chose none;
    ///   `errSecUserCanceled` when the release, the choice or the
    ///   master-password dialog is declined; `errSecAuthFailed` when the master password was wrong.
    ///   A Sign in with Apple account has no password: `errSecItemNotFound` saying so.
    public func get(server pattern: ServerPattern, account: String? = nil, in filter: StoreFilter = .both) throws -> CredentialRecord {
        try reader.get(server: pattern, account: account, in: filter)
    }

    /// `get(server:account:in:)` for an exact server (its scheme included).
    public func get(server: ServerName, account: String? = nil, in filter: StoreFilter = .both) throws -> CredentialRecord {
        try reader.get(server: ServerPattern(server), account: account, in: filter)
    }

    /// The one server `pattern` names for `account` (any account when nil)
    /// among the live internet passwords of the stores in `filter`; nil when none matches.
    /// - Throws: `errSecParam` (exit 2) naming the servers when the matches lie at several.
    public func server(matching pattern: ServerPattern, account: String?, in filter: StoreFilter = .both) throws -> ServerName? {
        try reader.server(matching: pattern, account: account, in: filter)
    }

    /// The accounts `pattern` matches in the stores of `filter`, sorted by
    /// server then account, local before shared (`list SERVER`).
    public func accounts(of pattern: ServerPattern, in filter: StoreFilter = .both) -> [CredentialEntry] {
        reader.accounts(of: pattern, in: filter)
    }

    /// Login-flow steps 1–2 (DESIGN §4): like `get`, but a declined release
    /// or nothing found gives nil instead of an error. A Sign in with Apple
    /// account is found like a password one (its record has `signInWith`
    /// `.apple` and no password), unless `passwordsOnly`.
    /// - Throws: `errSecUserCanceled` / `errSecAuthFailed` from a `userPresence` item.
    public func lookup(server: ServerName, account: String? = nil, passwordsOnly: Bool = false) throws -> CredentialRecord? {
        try reader.lookup(server: server, account: account, passwordsOnly: passwordsOnly)
    }

    /// The password of `entry`, for the TUI's reveal and copy. The user is
    /// browsing their own vault, so no release consent is asked; a
    /// `userPresence` item re-asks the master password (DESIGN §2, §7).
    /// - Parameter purpose: what the caller does with it, named in the master-password
    ///   prompt's reason ("copy the password for …").
    /// - Throws: `errSecItemNotFound` when the entry is gone;
    ///   `errSecUserCanceled` / `errSecAuthFailed` from the master-password check.
    public func reveal(_ entry: CredentialEntry, for purpose: RevealPurpose = .show) throws -> Secret {
        try reader.reveal(entry, for: purpose)
    }

    /// `keyshelf get --service`: the generic password of `account` for
    /// `service` (the only account when nil); a `userPresence` item re-asks
    /// the master password. No release consent: it is the user's own local
    /// secret, never a shared web credential.
    /// - Throws: `errSecItemNotFound`; `errSecParam` naming the accounts when
    ///   `account` is nil and there are several; `errSecUserCanceled` /
    ///   `errSecAuthFailed` from the master-password check.
    public func genericPassword(service: String, account: String?) throws -> (entry: GenericEntry, password: Secret) {
        try reader.genericPassword(service: service, account: account)
    }

    /// The password of a generic `entry`, for the TUI's reveal and copy (as
    /// `reveal(_:for:)`: no release consent; `userPresence` re-asks the master password).
    /// - Throws: `errSecItemNotFound` when it is gone; `errSecUserCanceled` / `errSecAuthFailed`.
    public func reveal(_ entry: GenericEntry, for purpose: RevealPurpose = .show) throws -> Secret {
        try reader.reveal(entry, for: purpose)
    }
}
