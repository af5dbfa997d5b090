import Foundation
import KeyshelfCrypto
import KeyshelfVault

/// The facade the CLI and TUI share: listings, search and the consent-gated
/// operations over an unlocked vault (DESIGN §2–§5, §8).
///
/// A composition of two owners: `ShelfReader` keeps the snapshot (loaded at
/// `init` / `reload()`, refreshed after each change) with its listing and
/// search index, and answers reads and lookups (`Keyshelf+Reading`);
/// `ShelfWriter` runs every change (`Keyshelf+Writing`): first on freshly
/// loaded items, so consent dialogs appear while no vault lock is held, then
/// inside the vault's locked read-modify-write, replaying the recorded
/// answers. Errors are `KeychainError` (with the `errSec…` status) or the
/// vault's own errors.
public final class Keyshelf {
    let reader: ShelfReader
    let writer: ShelfWriter

    /// Where items are kept.
    public var vault: any CredentialVault { reader.vault }
    /// Answers consent requests (DESIGN §5): a dialog, `/dev/tty`, `DeclineAll` or `ApproveAll`.
    public var consent: any Consent {
        get { reader.consent }
        set { reader.consent = newValue }
    }
    /// Re-asks the master password for `userPresence` items; nil means nobody
    /// can be asked, so such secrets are not released.
    public var userPresence: (any UserPresencePrompt)? {
        get { reader.userPresence }
        set { reader.userPresence = newValue }
    }

    /// Loads the items of `vault`.
    /// - Throws: the vault's error when it cannot be read.
    public init(vault: any CredentialVault, consent: any Consent = DeclineAll(), userPresence: (any UserPresencePrompt)? = nil) throws {
        reader = try ShelfReader(vault: vault, consent: consent, userPresence: userPresence)
        writer = ShelfWriter(reader: reader)
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

    // MARK: - For the facade's extensions (one-time codes, audit, associations, keys, rules)

    /// The reader's snapshot of both stores.
    var snapshot: VaultContents { reader.snapshot }

    /// `ShelfWriter.mutate`: a change asked on fresh items, then made under the vault's lock.
    func mutate<T>(_ body: (inout VaultContents, any Consent) throws -> T) throws -> T {
        try writer.mutate(body)
    }

    /// `ShelfWriter.editing`: `items[store]` as a `LocalStore`, copying no item.
    static func editing<T>(_ store: Store, of items: inout VaultContents, _ body: (inout LocalStore) throws -> T) rethrows -> T {
        try ShelfWriter.editing(store, of: &items, body)
    }

    /// `ShelfReader.withUserPresence`: a master-password check for `userPresence` items.
    func withUserPresence<T>(reason: String, _ body: (() -> Bool) throws -> T) throws -> T {
        try reader.withUserPresence(reason: reason, body)
    }
}
