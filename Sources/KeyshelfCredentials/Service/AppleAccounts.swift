import Foundation
import KeyshelfCrypto
import KeyshelfVault

/// Accounts created with Sign in with Apple (DESIGN §13, docs/sign-in-with-apple.md):
/// internet items without a password whose `signInWithApple` is set. They are
/// listed and returned by the login flow like password accounts; nothing
/// releases, audits, generates or sends a password for them.
extension Keyshelf {
    /// Where Apple lets the user manage the apps that use Sign in with Apple (REFERENCE).
    public static let appleManagementHint = "manage in Apple Account → Sign-In & Security"
}

extension ShelfWriter {
    func addAppleAccount(
        server: ServerName, account: String, to store: Store, hidesEmail: Bool?, forwardingAddress: String, since: Date?, label: String
    ) throws {
        let now = Date()
        let hidden = hidesEmail ?? AppleSignIn.isRelayAddress(account)
        guard forwardingAddress.isEmpty || hidden else {
            throw KeychainError.param("a forwarding address belongs to a hidden (relay) e-mail; \(InertText.quoted(account)) is not one (add --hidden-email if it is)")
        }
        let item = Item(
            itemClass: .internetPassword, account: account, server: server.host, protocol: server.scheme, port: server.port,
            label: label, synchronizable: store == .shared, password: nil,
            signInWithApple: AppleSignIn(hidesEmail: hidden, forwardingAddress: forwardingAddress, since: since ?? now))
        try mutate { items, _ in
            try Self.editing(store, of: &items) { try $0.add(item, now: now) }
        }
    }

    /// Whether `items` hold `account` at `server` as a Sign in with Apple account.
    static func hasAppleAccount(_ account: String, at server: ServerName, in items: [Item]) -> Bool {
        let query = ItemQuery.internet(server, account: account)
        return items.contains(inPlace: { $0.pointee.signInWithApple != nil && query.matches($0) })
    }

    /// Refuses to save a password for a Sign in with Apple account.
    /// - Throws: `errSecDuplicateItem` naming the account and what to do.
    static func refusePassword(onAppleAccount account: String, at server: ServerName, in items: [Item]) throws {
        try refusePassword(onAppleAccount: account, at: server, in: items, matching: items.indices(inPlace: ItemQuery.internet(server, account: account).matches))
    }

    /// As `refusePassword(onAppleAccount:at:in:)`, looking only at the items at
    /// `matching`: those `ItemQuery.internet(server, account:)` matches, found by the caller's own pass.
    static func refusePassword(onAppleAccount account: String, at server: ServerName, in items: [Item], matching: [Int]) throws {
        guard matching.contains(where: { items[$0].signInWithApple != nil }) else { return }
        throw KeychainError.duplicate("\(InertText.quoted(account)) on \(server.display) is saved as a Sign in with Apple account, which has no password; remove it first (keyshelf rm) to save a password")
    }
}

extension ShelfReader {
    /// Login-flow step 2 for Sign in with Apple: the first (by account)
    /// shared Apple account matching, when no shared password record does (a
    /// password record asks the release consent instead). Its record holds no
    /// secret, so no consent is asked; `list` shows the same.
    func sharedAppleAccount(server: ServerName, account: String?) -> CredentialRecord? {
        let query = ItemQuery.internet(server, account: account)
        let matches = snapshot.shared.filter(query.matches)
        guard !matches.contains(where: { $0.signInWithApple == nil }),
              let first = matches.min(by: { $0.account < $1.account }) else { return nil }
        var record = CredentialRecord(server: server, account: first.account, password: nil, store: .shared)
        record.signInWith = .apple
        return record
    }

    /// "… signs in with Apple: there is no password to release" (`errSecItemNotFound`).
    static func signsInWithApple(_ account: String, _ server: ServerName) -> KeychainError {
        KeychainError.notFound("\(InertText.quoted(account)) on \(server.display) signs in with Apple: there is no password to release (\(Keyshelf.appleManagementHint))")
    }
}
