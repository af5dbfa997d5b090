import Foundation
import KeyshelfCrypto
import KeyshelfVault

/// The add-or-update-with-consent rule of a password for an account at a
/// server, the same in both stores: Shared Web Credentials' `add` (DESIGN
/// §3), which the local store follows with Keychain items (DESIGN §2, §4).
///
/// - No item yet → added without a prompt (`.added`).
/// - The same password → nobody is asked (`.unchanged`; `.updated` when
///   the OAuth attributes change; new notes are saved either way).
/// - Another password → `.update(server:account:)` is asked first
///   (`.updated`), unless it only rotates an OAuth token (`OAuthAttributes.rotates`);
///   declined: `errSecUserCanceled` "updating the password for … was declined", nothing changes.
enum PasswordUpdateConsent {
    /// Asks `consent` to replace the saved password of `account` at `server`.
    /// - Throws: `errSecUserCanceled` when it is declined.
    static func confirm(server: ServerName, account: String, consent: any Consent) throws {
        guard consent.ask(.update(server: server, account: account)) != .declined else {
            throw KeychainError.canceled("updating the password for \(InertText.quoted(account)) on \(server.qualified) was declined")
        }
    }

    /// Saves `password` for `account` at `server` in `store` by the rule;
    /// `newItem` is the store's record for a credential not saved yet.
    /// `comment` nil leaves the notes as they are; `oauth` nil leaves the
    /// OAuth attributes (git helper, `OAuthAttributes`).
    /// `lookup` finds the saved item among the items at `server`'s host of
    /// `storeName` (the store `store` holds), when it knows them.
    /// - Throws: `errSecUserCanceled` (declined), what `LocalStore.add` throws for `newItem`.
    static func save(
        _ password: Secret, server: ServerName, account: String, comment: String?, oauth: OAuthAttributes?,
        newItem: Item, in store: inout LocalStore, consent: any Consent, now: Date,
        lookup: HostLookup = .scanning, of storeName: Store = .local
    ) throws -> AddOutcome {
        guard let index = lookup.firstIndex(in: store.items, of: storeName, where: ItemQuery.internet(server, account: account).matches) else {
            var item = newItem
            oauth?.apply(to: &item)
            try store.add(item, now: now)
            return .added
        }
        let existing = store.items[index]
        if existing.password == password {
            if let comment, comment != existing.comment {
                store.items[index].comment = comment
                store.items[index].modificationDate = now
            }
            return OAuthAttributes.update(&store.items, at: index, to: oauth, now: now) ? .updated : .unchanged
        }
        if !OAuthAttributes.rotates(existing, to: oauth) {
            try confirm(server: server, account: account, consent: consent)
        }
        store.items[index].replacePassword(with: password, at: now)
        if let comment { store.items[index].comment = comment }
        store.items[index].modificationDate = now
        _ = OAuthAttributes.update(&store.items, at: index, to: oauth, now: now)
        return .updated
    }
}
