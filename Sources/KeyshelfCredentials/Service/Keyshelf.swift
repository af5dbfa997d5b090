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
    /// - Returns: whether the items changed (another process wrote the vault: a CLI
    ///   `add`, the agent, a sync), so a long-lived view redraws (issue 13 rule 7).
    @discardableResult
    public func refresh() throws -> Bool {
        let items = try vault.loadItems()
        guard vault.revision != snapshotRevision else { return false }
        adopt(items)
        return true
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
    func withoutSnapshot<T>(_ write: () throws -> T) rethrows -> T {
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
}
