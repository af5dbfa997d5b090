import Foundation
import KeyshelfCrypto
import KeyshelfVault
import Testing
@testable import KeyshelfCredentials

/// One-time codes at the limits of their numbers: times near `Int64.max`,
/// a HOTP counter that cannot grow, and the label a stored secret gets.
@Suite struct OneTimeCodeLimitsTests {
    static let rfcSecret = OneTimeCodeTests.rfcSecret

    func item(_ account: String, otpauth: String) -> Item {
        var item = internetItem("example.com", account, "pw")
        item.otpauth = otpauth
        return item
    }

    @Test(arguments: [1, 2, 3, 30, OTPAuth.maximumPeriod])
    func theLastSecondsOfTimeNeitherTrapNorWait(period: Int) throws {
        let auth = try OTPAuth.parse("otpauth://totp/x?secret=\(Self.rfcSecret)&period=\(period)")
        // No period starts after Int64.max: the current code is the one to copy.
        #expect(auth.copyTime(at: .max) == .max)
        #expect(auth.copyTime(at: .max - 1) >= .max - 1)
        let code = auth.code(at: .max)
        #expect(code.code == auth.code(counter: UInt64(Int64.max / Int64(period))))
        #expect(code.remaining == period - Int(Int64.max % Int64(period)))
    }

    @Test func aHOTPCounterAtItsMaximumRefusesInsteadOfRepeating() throws {
        let start = OTPAuth.maximumCounter - 1
        let vault = MemoryVault(items: VaultContents(local: [item("alice", otpauth: "otpauth://hotp/x?secret=\(Self.rfcSecret)&counter=\(start)")]))
        let shelf = try Keyshelf(vault: vault)
        let first = try shelf.oneTimeCode(server: server("example.com"), at: 0).code.code
        #expect(first == (try OTPAuth.parse(Self.rfcSecret)).code(counter: start))
        let error = try #require(throws: KeychainError.self) { try shelf.oneTimeCode(server: server("example.com"), at: 0) }
        #expect(error.status == .param)
        #expect(error.reason.contains("maximum"), "\(error.reason)")
        #expect(throws: KeychainError(.param, "")) { try shelf.oneTimeCodeToCopy(server: server("example.com"), at: 0) }
        #expect(try OTPAuth.parse(vault.loadItems().local[0].otpauth).counter == OTPAuth.maximumCounter)
    }

    @Test(arguments: ["9223372036854775808", "18446744073709551615", "18446744073709551616", "99999999999999999999999", "1e3", "-0x1"])
    func countersBeyondTheMaximumAreRefused(counter: String) throws {
        let error = try #require(throws: KeychainError.self) { try OTPAuth.parse("otpauth://hotp/x?secret=\(Self.rfcSecret)&counter=\(counter)") }
        #expect(error.reason.contains("0 to 9223372036854775807"), "\(error.reason)")
    }

    @Test func aSecretWithoutALabelIsStoredWithTheAccountAndServer() throws {
        let vault = MemoryVault(items: VaultContents(local: [internetItem("example.com", "alice", "pw"), internetItem("example.com", "bob", "pw"),
                                                            internetItem("example.com", "carol", "pw")]))
        let shelf = try Keyshelf(vault: vault)
        shelf.consent = ApproveAll()
        let site = server("example.com")
        try shelf.setOneTimeSecret(try OTPAuth.parse(Self.rfcSecret), server: site, account: "alice")
        try shelf.setOneTimeSecret(try OTPAuth.parse("otpauth://totp/?secret=\(Self.rfcSecret)"), server: site, account: "bob")
        try shelf.setOneTimeSecret(try OTPAuth.parse("otpauth://totp/Corp:c.x?secret=\(Self.rfcSecret)"), server: site, account: "carol")
        let tail = "secret=\(Self.rfcSecret)&issuer=example.com&algorithm=SHA1&digits=6&period=30"
        #expect(try shelf.oneTimeURI(server: site, account: "alice") == "otpauth://totp/example.com:alice?" + tail)
        #expect(try shelf.oneTimeURI(server: site, account: "bob") == "otpauth://totp/example.com:bob?" + tail)
        #expect(try shelf.oneTimeURI(server: site, account: "carol").hasPrefix("otpauth://totp/Corp:c.x?secret="))
        // What the vault holds (and exports) carries the label too.
        #expect(try vault.loadItems().local.first { $0.account == "alice" }?.otpauth == "otpauth://totp/example.com:alice?" + tail)
    }

    @Test func aSecretStoredWithoutALabelPrintsWithOne() throws {
        let vault = MemoryVault(items: VaultContents(local: [item("alice", otpauth: "otpauth://totp/?secret=\(Self.rfcSecret)&period=30")]))
        let shelf = try Keyshelf(vault: vault)
        shelf.consent = ApproveAll()
        #expect(try shelf.oneTimeURI(server: server("example.com"), account: "alice").hasPrefix("otpauth://totp/example.com:alice?"))
    }
}
