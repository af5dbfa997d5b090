import Foundation

/// How an account created with Sign in with Apple signs in (DESIGN §13): it
/// has no password; Apple gave the site an e-mail address, often a Hide My
/// Email relay, and sends it only at the first sign-in, so it is kept here.
///
/// Wire form: tags 36–38 (docs/vault-format.md, "Payload records").
public struct AppleSignIn: Sendable, Equatable {
    /// The user chose Hide My Email: the site got a relay address, not the real one.
    public var hidesEmail: Bool
    /// The real address the relay forwards to, when the user gave it; empty otherwise.
    public var forwardingAddress: String
    /// When the account was created with Sign in with Apple (the first sign-in).
    public var since: Date

    public init(hidesEmail: Bool, forwardingAddress: String = "", since: Date) {
        self.hidesEmail = hidesEmail
        self.forwardingAddress = forwardingAddress
        self.since = since
    }

    /// The domain of Hide My Email relay addresses.
    public static let relayDomain = "privaterelay.appleid.com"

    /// Whether `address` is a Hide My Email relay (`…@privaterelay.appleid.com`,
    /// the domain compared case-insensitively).
    public static func isRelayAddress(_ address: String) -> Bool {
        guard let at = address.lastIndex(of: "@"), at != address.startIndex else { return false }
        return address[address.index(after: at)...].lowercased() == relayDomain
    }
}
