import Foundation
import KeyshelfCrypto
import KeyshelfVault

/// The write side of `Keyshelf`: every change to the vault's items
/// (`ShelfWriter+Changes`, `+PasswordChange`, `+Edit`, `+Erase`,
/// `GenericPasswords`, `AppleAccounts`), run through `mutate`.
///
/// Every change runs its rule first on freshly loaded items, so consent
/// dialogs appear while no vault lock is held, then again inside the vault's
/// locked read-modify-write, replaying the recorded answers. Afterwards the
/// reader's snapshot is what the vault holds. A password saved over another
/// asks consent by one rule in both stores (`PasswordUpdateConsent`).
final class ShelfWriter {
    /// Whose snapshot each change replaces, and whose consent it asks.
    let reader: ShelfReader

    init(reader: ShelfReader) {
        self.reader = reader
    }

    var vault: any CredentialVault { reader.vault }
    var consent: any Consent { reader.consent }

    /// Runs `body` on the current items (asking consent, no lock held), then
    /// in the vault's locked `modify` with the recorded answers. A consent
    /// policy that never waits for a person skips the first run (it only
    /// exists so that no dialog waits while the vault is locked). When the
    /// policy is left waiting for an answer (`Consent.isWaitingForAnswer`)
    /// nothing is saved and `errSecUserCanceled` is thrown.
    func mutate<T>(_ body: (inout VaultContents, any Consent) throws -> T) throws -> T {
        try mutate(near: nil, keepsHosts: false) { items, consent, _ in try body(&items, consent) }
    }

    /// `mutate` for a change of the items at one host (`edit`, a password
    /// change): `body` also gets a `HostLookup`, which finds that host's
    /// items through the reader's `HostIndex` when the locked run edits the
    /// snapshot's items (else, and when `host` is nil, by a scan). With
    /// `keepsHosts` (the change moves no item to another host and removes
    /// none) the reader keeps its indexes afterwards, extended by the items
    /// appended, so the next lookup or write builds none.
    func mutate<T>(near host: String?, keepsHosts: Bool, _ body: (inout VaultContents, any Consent, HostLookup) throws -> T) throws -> T {
        let recorded = RecordedConsent(consent)
        if !consent.answersWithoutWaiting {
            // Fresh items, so the questions match what the locked run will find
            // (a `VaultSession` re-reads only the files that changed on disk).
            var dryRun = try vault.loadItems()
            _ = try body(&dryRun, recorded, HostLookup.scanning)
        }
        let revision = reader.snapshotRevision
        let near = host.map { reader.indexes(near: $0) }
        var kept: [Store: HostIndex]?
        return try withoutSnapshot(keeping: { kept }) {
            try vault.modifyItems(since: revision) { items, unchanged in
                let result = try body(&items, recorded, HostLookup(positions: unchanged ? near?.positions : nil))
                // A request left for the user elsewhere (the agent's client): save nothing yet.
                if consent.isWaitingForAnswer { throw KeychainError.canceled("a consent request is waiting for the user's answer") }
                if unchanged && keepsHosts { kept = near?.indexes }
                return result
            }
        }
    }

    /// Runs a locked write holding no reference to the vault's item arrays,
    /// so the vault edits and saves them in place: a second reference would
    /// make appending to a large store (and its re-encoding) copy every item.
    /// Saved or not, the snapshot is then what the vault now has (or, when it
    /// cannot say, the next `refresh()` asks again).
    /// - Parameter keeping: after the write, the host indexes that still
    ///   hold for what the vault then has (nil: none). They are kept only
    ///   when the items read back are the write's own: another process may
    ///   save between the write's lock and that read, moving items.
    func withoutSnapshot<T>(keeping: () -> [Store: HostIndex]? = { nil }, _ write: () throws -> T) rethrows -> T {
        reader.adopt(VaultContents())
        var written: Int?
        defer {
            if let items = try? vault.loadItems() {
                reader.adopt(items, indexes: vault.revision == written ? keeping() : nil)
            } else {
                reader.invalidate()
            }
        }
        let result = try write()
        written = vault.revision
        return result
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
}

/// Where a write looks for the items of the host it changes
/// (`ShelfWriter.mutate(near:)`): among the positions the reader's
/// `HostIndex` gave, when they hold for the items edited, else in the whole store.
struct HostLookup {
    /// Per store, the positions of the host's items; nil: unknown (scan).
    let positions: [Store: [Int]]?

    /// Every lookup scans the whole store.
    static let scanning = HostLookup(positions: nil)

    /// The first position in `items` (`store`'s) whose item satisfies `matches`.
    func firstIndex(in items: [Item], of store: Store, where matches: (UnsafePointer<Item>) -> Bool) -> Int? {
        guard let candidates = positions?[store] else { return items.firstIndex(inPlace: matches) }
        return items.withUnsafeBufferPointer { list in candidates.first { matches(list.baseAddress! + $0) } }
    }

    /// Every position in `items` (`store`'s) whose item satisfies `matches`, ascending.
    func indices(in items: [Item], of store: Store, where matches: (UnsafePointer<Item>) -> Bool) -> [Int] {
        guard let candidates = positions?[store] else { return items.indices(inPlace: matches) }
        return items.withUnsafeBufferPointer { list in candidates.filter { matches(list.baseAddress! + $0) } }
    }
}
