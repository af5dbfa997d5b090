import Foundation
import KeyshelfCrypto
import KeyshelfVault
import Testing
@testable import KeyshelfCredentials

/// The developer's side of Sign in with Apple: client secrets checked with
/// `openssl dgst -verify`, identity tokens made with `openssl` (issue 19 item 2).
@Suite struct SignInWithAppleTokenTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    func part(_ token: String, _ index: Int) throws -> [String: Any] {
        let text = token.split(separator: ".", omittingEmptySubsequences: false)[index]
        let bytes = try #require(Base64URL.decode(text))
        return try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
    }

    @Test func theClientSecretVerifiesWithOpenSSLAndHasExactClaims() throws {
        let tool = try OpenSSLTool()
        let keyPath = try tool.p256Key()
        try tool.run(["pkey", "-in", keyPath, "-pubout", "-out", tool.path("pub.pem")])
        let pem = Secret(utf8: try String(contentsOfFile: keyPath, encoding: .utf8))
        let jwt = try ClientSecret.make(keyID: "ABC123DEFG", teamID: "TEAM123456", clientID: "com.example.web", days: 180,
                                        now: now, privateKeyPEM: pem)
        let parts = jwt.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        #expect(parts.count == 3)
        let header = try part(jwt, 0)
        #expect(header.count == 2 && header["alg"] as? String == "ES256" && header["kid"] as? String == "ABC123DEFG")
        let body = try part(jwt, 1)
        #expect(body.count == 5)
        #expect(body["iss"] as? String == "TEAM123456" && body["sub"] as? String == "com.example.web")
        #expect(body["aud"] as? String == "https://appleid.apple.com")
        let iat = try #require(body["iat"] as? Int), exp = try #require(body["exp"] as? Int)
        #expect(iat == 1_800_000_000 && exp - iat == 180 * 86_400 && exp - iat <= 15_777_000)
        let signature = try #require(Base64URL.decode(parts[2]))
        #expect(signature.count == 64)
        try Data(derSignature(jose: signature)).write(to: tool.directory.appendingPathComponent("sig.der"))
        try Data((parts[0] + "." + parts[1]).utf8).write(to: tool.directory.appendingPathComponent("input"))
        // openssl exits non-zero ("Verification failure") unless the signature is right.
        try tool.run(["dgst", "-sha256", "-verify", tool.path("pub.pem"), "-signature", tool.path("sig.der"), tool.path("input")])
        // A changed input does not verify: the check above means something.
        try Data((parts[0] + "." + parts[1] + "x").utf8).write(to: tool.directory.appendingPathComponent("input"))
        #expect(throws: OpenSSLTool.ToolError.self) {
            try tool.run(["dgst", "-sha256", "-verify", tool.path("pub.pem"), "-signature", tool.path("sig.der"), tool.path("input")])
        }
    }

    @Test func hostileKeysAreRefusedWithClearMessages() throws {
        let tool = try OpenSSLTool()
        try tool.run(["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-384", "-out", tool.path("p384.p8")])
        try tool.run(["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", tool.path("rsa.p8")])
        let cases: [(String, String)] = [
            (try String(contentsOfFile: tool.path("p384.p8"), encoding: .utf8), "not P-256"),
            (try String(contentsOfFile: tool.path("rsa.p8"), encoding: .utf8), "not an elliptic-curve"),
            ("-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n", "not a PEM PKCS#8"),
            ("garbage", "not a PEM PKCS#8"),
        ]
        for (pem, message) in cases {
            let error = try #require(throws: ES256.KeyError.self) { try ES256.validate(privateKeyPEM: Secret(utf8: pem)) }
            #expect(error.reason.contains(message), "\(error.reason)")
        }
        let key = Secret(utf8: try String(contentsOfFile: try tool.p256Key(), encoding: .utf8))
        #expect(throws: SignInWithAppleError("days", "")) {
            try ClientSecret.make(keyID: "K", teamID: "T", clientID: "C", days: 181, now: now, privateKeyPEM: key)
        }
    }

    // MARK: Identity tokens

    struct Fixture {
        let tool: OpenSSLTool
        let key: (path: String, n: String, e: String)
        let jwks: Data

        init() throws {
            tool = try OpenSSLTool()
            key = try tool.rsaKey()
            jwks = Data(#"{"keys":[{"kty":"RSA","kid":"K1","use":"sig","alg":"RS256","n":"\#(key.n)","e":"\#(key.e)"}]}"#.utf8)
        }

        func token(kid: String = "K1", alg: String = "RS256", iss: String = "https://appleid.apple.com",
                   aud: String = "com.example.web", exp: Int = 1_800_000_600, iat: Int = 1_800_000_000,
                   nonce: String = "n-0S6_WzA2Mj") throws -> String {
            let claims = #"{"iss":"\#(iss)","aud":"\#(aud)","exp":\#(exp),"iat":\#(iat),"sub":"001234.abcd","#
                + #""nonce":"\#(nonce)","email":"x7k2@privaterelay.appleid.com","is_private_email":"true"}"#
            return try tool.token(header: #"{"alg":"\#(alg)","kid":"\#(kid)"}"#, claims: claims, keyPath: key.path)
        }

        func verifier(nonce: String? = "n-0S6_WzA2Mj") -> IdentityTokenVerifier {
            IdentityTokenVerifier(jwks: jwks, clientID: "com.example.web", nonce: nonce)
        }
    }

    @Test func aValidTokenGivesTheSubjectAndTheRelay() throws {
        let f = try Fixture()
        let identity = try f.verifier().verify(try f.token(), now: now)
        #expect(identity == VerifiedIdentity(subject: "001234.abcd", email: "x7k2@privaterelay.appleid.com", isRelay: true,
                                             expiresAt: 1_800_000_600))
        #expect(try f.verifier(nonce: nil).verify(try f.token(), now: now).subject == "001234.abcd")
    }

    @Test func eachFailingCheckIsNamed() throws {
        let f = try Fixture()
        let valid = try f.token()
        let parts = valid.split(separator: ".").map(String.init)
        let tamperedClaims = try f.token(aud: "com.attacker").split(separator: ".").map(String.init)[1]
        let hs256Input = Base64URL.encode(Array(#"{"alg":"HS256","kid":"K1"}"#.utf8)) + "." + parts[1]
        // HS256 "signed" with the public key as the HMAC secret: the classic confusion attack.
        let publicPEM = try f.tool.run(["pkey", "-in", f.key.path, "-pubout"])
        let hmac = try f.tool.run(["dgst", "-sha256", "-mac", "HMAC", "-macopt", "hexkey:" + publicPEM.map { String(format: "%02x", $0) }.joined(),
                                   "-binary"], stdin: Data(hs256Input.utf8))
        let cases: [(String, String)] = [
            (try f.token(exp: 1_800_000_000 - 120), "exp"),
            (try f.token(aud: "com.other.app"), "aud"),
            (try f.token(iss: "https://evil.example"), "iss"),
            (parts[0] + "." + tamperedClaims + "." + parts[2], "signature"),
            (try f.token(kid: "K2"), "kid"),
            (try f.token(nonce: "another"), "nonce"),
            (try f.token(iat: 1_800_000_000 + 600), "iat"),
            (Base64URL.encode(Array(#"{"alg":"none","kid":"K1"}"#.utf8)) + "." + parts[1] + ".", "alg"),
            (hs256Input + "." + Base64URL.encode(hmac), "alg"),
            ("not.a.token!", "format"),
            (parts[0] + "." + parts[1], "format"),
        ]
        for (token, check) in cases {
            let error = try #require(throws: SignInWithAppleError.self) { try f.verifier().verify(token, now: now) }
            #expect(error.check == check, "\(check): \(error)")
        }
        // A token checked without an expected nonce still needs every other check.
        #expect(throws: SignInWithAppleError("aud", "")) { try f.verifier(nonce: nil).verify(try f.token(aud: "x"), now: now) }
    }

    @Test func aMalformedJWKSIsRefused() throws {
        let f = try Fixture()
        let bad = IdentityTokenVerifier(jwks: Data("[]".utf8), clientID: "com.example.web")
        #expect(throws: SignInWithAppleError("jwks", "")) { try bad.verify(try f.token(), now: now) }
        let short = IdentityTokenVerifier(jwks: Data(#"{"keys":[{"kty":"RSA","kid":"K1","n":"AQAB","e":"AQAB"}]}"#.utf8), clientID: "c")
        #expect(throws: SignInWithAppleError("kid", "")) { try short.verify(try f.token(), now: now) }
    }
}
