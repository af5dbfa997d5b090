import Foundation
import KeyshelfCrypto

/// Sign in with Apple's `client_secret`: an ES256 JWT signed with the
/// developer's private key (Apple, "Creating a client secret"; DESIGN §13).
///
/// Header `{"alg":"ES256","kid":KEY_ID}`; claims `iss` (team ID), `iat`,
/// `exp` (at most 180 days after `iat`, under Apple's 15 777 000 s),
/// `aud` `https://appleid.apple.com`, `sub` (the service ID / client ID).
public enum ClientSecret {
    /// Apple's issuer and the secret's audience.
    public static let audience = "https://appleid.apple.com"
    /// The longest lifetime offered, in days (Apple allows about six months).
    public static let maximumDays = 180

    /// The signed JWT `header.claims.signature` (base64url parts).
    /// - Parameters:
    ///   - privateKeyPEM: the PKCS#8 P-256 key, kept in sodium memory.
    ///   - days: lifetime, 1…`maximumDays`.
    ///   - now: `iat`, whole seconds since 1970.
    /// - Throws: `SignInWithAppleError` ("days", "key") for a bad lifetime or key.
    public static func make(keyID: String, teamID: String, clientID: String, days: Int, now: Date,
                            privateKeyPEM: Secret) throws -> String {
        guard (1...maximumDays).contains(days) else {
            throw SignInWithAppleError("days", "the lifetime must be 1 to \(maximumDays) days, not \(days)")
        }
        let issuedAt = Int(now.timeIntervalSince1970.rounded(.down))
        let header: [String: Any] = ["alg": "ES256", "kid": keyID]
        let claims: [String: Any] = [
            "iss": teamID, "iat": issuedAt, "exp": issuedAt + days * 86_400, "aud": audience, "sub": clientID,
        ]
        let signingInput = try part(header) + "." + part(claims)
        let signature: [UInt8]
        do {
            signature = try ES256.sign(Array(signingInput.utf8), privateKeyPEM: privateKeyPEM)
        } catch {
            throw SignInWithAppleError("key", error.reason)
        }
        return signingInput + "." + Base64URL.encode(signature)
    }

    private static func part(_ object: [String: Any]) throws -> String {
        Base64URL.encode(try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]))
    }
}
