import Foundation
import KeyshelfCrypto
import KeyshelfVault

/// git's OAuth attributes of a credential (git-credential(1),
/// `password_expiry_utc` and `oauth_refresh_token`), kept on the item
/// (`Item.passwordExpiryUTC`, `Item.oauthRefreshToken`).
///
/// An item carrying either is an OAuth credential: `Keyshelf.save` replaces
/// its password without asking consent, since git rotates such tokens
/// itself (docs/cli.md, "git credential helper").
public struct OAuthAttributes: Sendable, Equatable {
    /// When the password expires, in seconds since 1970-01-01 UTC; nil: never.
    public var passwordExpiryUTC: UInt64?
    /// The refresh token: a secret like the password.
    public var refreshToken: Secret?

    public init(passwordExpiryUTC: UInt64? = nil, refreshToken: Secret? = nil) {
        self.passwordExpiryUTC = passwordExpiryUTC
        self.refreshToken = refreshToken
    }

    /// The attributes `item` carries.
    init(of item: Item) {
        self.init(passwordExpiryUTC: item.passwordExpiryUTC, refreshToken: item.oauthRefreshToken)
    }

    /// True when neither attribute is set (an ordinary password).
    public var isEmpty: Bool { passwordExpiryUTC == nil && refreshToken == nil }

    /// Whether the password has expired at `now`: its expiry is before
    /// `now`, git's own test (`credential.c`: `password_expiry_utc < time(NULL)`).
    public func isExpired(at now: Date) -> Bool {
        guard let passwordExpiryUTC else { return false }
        return Double(passwordExpiryUTC) < now.timeIntervalSince1970.rounded(.down)
    }

    /// Sets `item`'s attributes to these (nil clears one).
    func apply(to item: inout Item) {
        item.passwordExpiryUTC = passwordExpiryUTC
        item.oauthRefreshToken = refreshToken
    }

    /// Whether saving a new password with attributes `new` over `existing`
    /// only rotates an OAuth token, which needs no consent: both the saved
    /// item and the new value carry an expiry or a refresh token. A plain
    /// password (`new` nil or empty) over an OAuth token keeps the consent rule.
    static func rotates(_ existing: Item, to new: OAuthAttributes?) -> Bool {
        guard let new, !new.isEmpty else { return false }
        return !OAuthAttributes(of: existing).isEmpty
    }

    /// Sets the attributes of `items[index]` to `new` when given and
    /// different, stamping it `now`; returns whether it changed.
    static func update(_ items: inout [Item], at index: Int, to new: OAuthAttributes?, now: Date) -> Bool {
        guard let new, new != OAuthAttributes(of: items[index]) else { return false }
        new.apply(to: &items[index])
        items[index].modificationDate = now
        return true
    }
}
