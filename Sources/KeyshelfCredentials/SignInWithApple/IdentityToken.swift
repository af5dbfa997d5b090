import Foundation
import KeyshelfCrypto
import KeyshelfVault

/// What a checked Sign in with Apple identity token says about the user.
public struct VerifiedIdentity: Sendable, Equatable {
    /// `sub`: the stable user identifier for this team.
    public var subject: String
    /// `email`, when the token has one (Apple sends it; often a relay address).
    public var email: String?
    /// Whether `email` is a Hide My Email relay (`is_private_email`, or the relay domain).
    public var isRelay: Bool
    /// `exp`, seconds since 1970.
    public var expiresAt: Int
}

/// Checks a Sign in with Apple identity token (`id_token`, an RS256 JWT)
/// against a JWKS the user downloaded from Apple (DESIGN §13; keyshelf
/// fetches nothing). The checks, in order, each named in the error:
/// `format`, `alg` (only RS256: `none`, HS256 and the rest are refused),
/// `kid` (a key of the JWKS with that `kid`, `kty` RSA), `signature`, `iss`
/// (`https://appleid.apple.com`), `aud` (the client ID), `exp` and `iat`
/// (with `leewaySeconds`), `nonce` (when one is expected).
public struct IdentityTokenVerifier {
    /// Apple's issuer.
    public static let issuer = "https://appleid.apple.com"
    /// Clock skew allowed for `exp` and `iat`, in seconds.
    public static let leewaySeconds = 60

    /// The keys: a JWKS document (`{"keys":[{"kty":"RSA","kid":…,"n":…,"e":…},…]}`).
    public var jwks: Data
    /// The service ID the token must be for (`aud`).
    public var clientID: String
    /// The nonce the sign-in request carried; nil: not checked.
    public var nonce: String?

    public init(jwks: Data, clientID: String, nonce: String? = nil) {
        self.jwks = jwks
        self.clientID = clientID
        self.nonce = nonce
    }

    /// Checks `token` at `now`.
    /// - Throws: `SignInWithAppleError` naming the first check that failed.
    public func verify(_ token: String, now: Date = Date()) throws -> VerifiedIdentity {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let headerBytes = Base64URL.decode(parts[0]), let claimBytes = Base64URL.decode(parts[1]),
              let signature = Base64URL.decode(parts[2]),
              let header = try? JSONSerialization.jsonObject(with: Data(headerBytes)) as? [String: Any],
              let claims = try? JSONSerialization.jsonObject(with: Data(claimBytes)) as? [String: Any] else {
            throw SignInWithAppleError("format", "not a JWT: three base64url parts, header and claims JSON objects")
        }
        guard let alg = header["alg"] as? String, alg == "RS256" else {
            throw SignInWithAppleError("alg", "the token's algorithm is \(InertText.quoted(String(describing: header["alg"] ?? "none"))); only RS256 is accepted")
        }
        guard let kid = header["kid"] as? String else { throw SignInWithAppleError("kid", "the token's header names no key (kid)") }
        let (modulus, exponent) = try key(kid)
        let signed = Array(token.utf8.prefix(parts[0].utf8.count + 1 + parts[1].utf8.count))
        let valid: Bool
        do {
            valid = try RS256.verify(signature, of: signed, modulus: modulus, exponent: exponent)
        } catch {
            throw SignInWithAppleError("kid", "the key \(InertText.quoted(kid)) of the JWKS cannot be used: \(error.reason)")
        }
        guard valid else { throw SignInWithAppleError("signature", "the RS256 signature does not verify with the key \(InertText.quoted(kid))") }
        return try checkClaims(claims, times: try Self.timeClaims(claimBytes), now: now)
    }

    private func checkClaims(_ claims: [String: Any], times: [String: Int], now: Date) throws -> VerifiedIdentity {
        guard claims["iss"] as? String == Self.issuer else {
            throw SignInWithAppleError("iss", "the issuer is \(InertText.quoted(String(describing: claims["iss"] ?? "missing"))), not \(Self.issuer)")
        }
        let audiences = (claims["aud"] as? String).map { [$0] } ?? (claims["aud"] as? [String]) ?? []
        guard audiences.contains(clientID) else {
            throw SignInWithAppleError("aud", "the token is for \(audiences.map(InertText.quoted).joined(separator: ", ")), not \(InertText.quoted(clientID))")
        }
        let seconds = Int(now.timeIntervalSince1970.rounded(.down))
        // Compared as differences from now, so no claim value can overflow (an exp of Int.max is far future).
        guard let exp = times["exp"] else { throw SignInWithAppleError("exp", "the token has no expiry (exp)") }
        guard Self.isAfter(exp, seconds.subtractingReportingOverflow(Self.leewaySeconds)) else {
            throw SignInWithAppleError("exp", "the token expired at \(exp) (now \(seconds))")
        }
        guard let iat = times["iat"] else { throw SignInWithAppleError("iat", "the token has no issue time (iat)") }
        guard !Self.isAfter(iat, seconds.addingReportingOverflow(Self.leewaySeconds)) else {
            throw SignInWithAppleError("iat", "the token is issued in the future (\(iat), now \(seconds))")
        }
        if let nonce {
            guard claims["nonce"] as? String == nonce else {
                throw SignInWithAppleError("nonce", claims["nonce"] == nil ? "the token carries no nonce" : "the token's nonce is not the one given")
            }
        }
        guard let subject = claims["sub"] as? String, !subject.isEmpty else { throw SignInWithAppleError("sub", "the token names no subject (sub)") }
        let email = claims["email"] as? String
        // Apple sends is_private_email as a boolean or as the string "true".
        let privateFlag = claims["is_private_email"].map { ($0 as? Bool) ?? (($0 as? String) == "true") } ?? false
        return VerifiedIdentity(subject: subject, email: email,
                                isRelay: privateFlag || (email.map { AppleSignIn.isRelayAddress($0) } ?? false), expiresAt: exp)
    }

    /// The modulus and exponent of the JWKS key `kid`.
    private func key(_ kid: String) throws -> ([UInt8], [UInt8]) {
        guard let document = try? JSONSerialization.jsonObject(with: jwks) as? [String: Any],
              let keys = document["keys"] as? [[String: Any]] else {
            throw SignInWithAppleError("jwks", "the JWKS file is not a JSON object with a \"keys\" array")
        }
        guard let jwk = keys.first(where: { $0["kid"] as? String == kid }) else {
            throw SignInWithAppleError("kid", "no key \(InertText.quoted(kid)) in the JWKS file (download Apple's current keys again)")
        }
        guard jwk["kty"] as? String == "RSA", (jwk["alg"] as? String ?? "RS256") == "RS256",
              let n = (jwk["n"] as? String).flatMap(Base64URL.decode), let e = (jwk["e"] as? String).flatMap(Base64URL.decode) else {
            throw SignInWithAppleError("kid", "the key \(InertText.quoted(kid)) of the JWKS is not an RS256 RSA key with n and e")
        }
        return (n, e)
    }

    /// Whether `value` is later than `bound`, a sum that may have overflowed
    /// (then it lies beyond every `Int`, in the direction of its addend).
    private static func isAfter(_ value: Int, _ bound: (partialValue: Int, overflow: Bool)) -> Bool {
        guard bound.overflow else { return value > bound.partialValue }
        return bound.partialValue > 0 // wrapped from below Int.min: every value is after it
    }

    /// The claims that are Unix seconds (`exp`, `iat`), read as JSON
    /// integers only: `true`, `1.5`, `"5"` or a number beyond `Int` is refused
    /// (JSONSerialization's NSNumber bridging would read `true` as 1).
    /// - Throws: `SignInWithAppleError` naming the claim.
    private static func timeClaims(_ claimBytes: [UInt8]) throws -> [String: Int] {
        do {
            return try JSONDecoder().decode(IntegerClaims.self, from: Data(claimBytes)).values
        } catch let error as SignInWithAppleError {
            throw error
        } catch {
            throw SignInWithAppleError("format", "the token's claims are not a JSON object")
        }
    }
}

/// The integer claims of a token's claims object (`IdentityTokenVerifier.timeClaims`).
private struct IntegerClaims: Decodable {
    static let names = ["exp", "iat"]

    var values: [String: Int] = [:]

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: ClaimKey.self)
        for name in Self.names {
            let key = ClaimKey(stringValue: name)
            guard container.contains(key), try !container.decodeNil(forKey: key) else { continue }
            guard let value = try? container.decode(Int.self, forKey: key) else {
                throw SignInWithAppleError(name, "the \(name) claim is not a whole number of seconds (a JSON integer)")
            }
            values[name] = value
        }
    }

    private struct ClaimKey: CodingKey {
        var stringValue: String
        init(stringValue: String) { self.stringValue = stringValue }
        var intValue: Int? { nil }
        init?(intValue: Int) { nil }
    }
}
