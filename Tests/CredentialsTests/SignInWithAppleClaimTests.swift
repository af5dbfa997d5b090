import Foundation
import Testing
@testable import KeyshelfCredentials

/// The time claims of a correctly signed identity token at the edges:
/// `exp` at `Int.max` does not overflow, and `exp`/`iat` must be JSON
/// integers (a boolean or a fraction is refused, naming the claim).
@Suite struct SignInWithAppleClaimTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    func token(_ f: SignInWithAppleTokenTests.Fixture, exp: String, iat: String) throws -> String {
        let claims = #"{"iss":"https://appleid.apple.com","aud":"com.example.web","exp":\#(exp),"iat":\#(iat),"#
            + #""sub":"001234.abcd","nonce":"n-0S6_WzA2Mj"}"#
        return try f.tool.token(header: #"{"alg":"RS256","kid":"K1"}"#, claims: claims, keyPath: f.key.path)
    }

    @Test func extremeTimesAreComparedWithoutOverflow() throws {
        let f = try SignInWithAppleTokenTests.Fixture()
        let far = try f.verifier().verify(try token(f, exp: "9223372036854775807", iat: "1800000000"), now: now)
        #expect(far.expiresAt == Int.max)
        let ancient = try token(f, exp: "-9223372036854775808", iat: "-9223372036854775808")
        #expect(throws: SignInWithAppleError("exp", "")) { try f.verifier().verify(ancient, now: now) }
        let future = try token(f, exp: "9223372036854775807", iat: "9223372036854775807")
        #expect(throws: SignInWithAppleError("iat", "")) { try f.verifier().verify(future, now: now) }
    }

    @Test(arguments: [("true", "1800000000", "exp"), ("1800000600", "true", "iat"), ("1800000600.5", "1800000000", "exp"),
                      ("\"1800000600\"", "1800000000", "exp"), ("1800000600", "false", "iat"),
                      ("1800000600", "92233720368547758070", "iat")])
    func onlyJSONIntegersAreTimes(exp: String, iat: String, check: String) throws {
        let f = try SignInWithAppleTokenTests.Fixture()
        let error = try #require(throws: SignInWithAppleError.self) { try f.verifier().verify(try token(f, exp: exp, iat: iat), now: now) }
        #expect(error.check == check, "\(error)")
        #expect(error.reason.contains("\(check) claim"), "\(error)")
    }
}
