import Foundation
import Testing

/// `keyshelf otp` through the real binary (docs/otp.md): codes at a given
/// time, --json, exit 3, `otp set` from standard input, `otp uri` consent.
@Suite struct OtpCommandTests {
    /// "12345678901234567890" in base32 (RFC 6238's SHA-1 key).
    static let secret = "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ"

    func vaultWithSecret(local: Bool = true) throws -> TestVault {
        let vault = try TestVault()
        try vault.add("example.com", "alice", password: "pw", local: local)
        let set = try vault.run(["otp", "set", "example.com", "alice"], stdin: "otpauth://totp/Example:alice?secret=\(Self.secret)&digits=8\n")
        guard set.status == 0 else { throw SetupError(run: set) }
        return vault
    }

    @Test func printsTheRFC6238CodeAtAGivenTimeAndAsJSON() throws {
        let vault = try vaultWithSecret()
        let code = try vault.run(["otp", "example.com", "--at", "59"])
        #expect(code.status == 0, "\(code)")
        #expect(code.stdout == "94287082\n")
        let json = try vault.run(["otp", "example.com", "alice", "--at", "1111111109", "--json"])
        #expect(json.status == 0, "\(json)")
        let object = try #require(try json.json() as? [String: Any])
        #expect(object["code"] as? String == "07081804")
        #expect(object["remaining"] as? Int == 1)
        #expect(object["period"] as? Int == 30)
        #expect(!json.stderr.contains(Self.secret))
    }

    @Test func exitsThreeWithoutSecretOrAccount() throws {
        let vault = try TestVault()
        try vault.add("example.com", "bob", password: "pw", local: true)
        let noSecret = try vault.run(["otp", "example.com", "bob"])
        #expect(noSecret.status == 3, "\(noSecret)")
        #expect(noSecret.stderr.contains("no one-time-code secret"))
        let noAccount = try vault.run(["otp", "example.com", "nobody"])
        #expect(noAccount.status == 3, "\(noAccount)")
        let badSecret = try vault.run(["otp", "set", "example.com", "bob"], stdin: "otpauth://totp/x?secret=\(Self.secret)&algorithm=MD5\n")
        #expect(badSecret.status != 0)
        #expect(badSecret.stderr.contains("MD5"))
        #expect(!badSecret.stderr.contains(Self.secret))
    }

    @Test func uriNeedsConsentAndPrintsWithYes() throws {
        let vault = try vaultWithSecret()
        let declined = try vault.run(["otp", "uri", "example.com", "alice"])
        #expect(declined.status == 4, "\(declined)")
        #expect(declined.stdout.isEmpty)
        let approved = try vault.run(["otp", "uri", "example.com", "alice", "--yes"])
        #expect(approved.status == 0, "\(approved)")
        #expect(approved.stdout == "otpauth://totp/Example:alice?secret=\(Self.secret)&issuer=Example&algorithm=SHA1&digits=8&period=30\n")
    }

    @Test func sharedCodesAreReleasedLikePasswords() throws {
        let vault = try vaultWithSecret(local: false)
        #expect(try vault.run(["otp", "example.com", "--at", "59"]).status == 4)
        let code = try vault.run(["otp", "example.com", "--at", "59", "--yes"])
        #expect(code.stdout == "94287082\n", "\(code)")
    }

    @Test func hotpCodesAdvanceTheSavedCounter() throws {
        let vault = try TestVault()
        try vault.add("bank.example", "carol", password: "pw", local: true)
        let set = try vault.run(["otp", "set", "bank.example", "carol"], stdin: "otpauth://hotp/Bank:carol?secret=\(Self.secret)&counter=0\n")
        #expect(set.status == 0, "\(set)")
        let codes = try (0..<2).map { _ in try vault.run(["otp", "bank.example"]).stdout }
        #expect(codes == ["755224\n", "287082\n"])
    }
}
