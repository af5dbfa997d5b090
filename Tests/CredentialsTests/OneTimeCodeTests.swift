import Foundation
import KeyshelfCrypto
import KeyshelfVault
import Testing
@testable import KeyshelfCredentials

/// The otpauth parser (every form of docs/otp.md), the codes liboath does
/// not compute (Steam, 9–10 digits) and the facade's HOTP counter and merge.
@Suite struct OneTimeCodeTests {
    /// "12345678901234567890" in base32 (RFC 4226's key).
    static let rfcSecret = "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ"

    @Test(arguments: [
        ("otpauth://totp/ACME%20Co:alice@example.com?secret=\(rfcSecret)&issuer=ACME%20Co", OTPAuth.Kind.totp, OTPHash.sha1, 6, 30, "ACME Co", "alice@example.com", false),
        ("OTPAUTH://TOTP/Example:Bob?SECRET=\(rfcSecret.lowercased())&Algorithm=sha256&Digits=8&Period=60", .totp, .sha256, 8, 60, "Example", "Bob", false),
        ("otpauth://hotp/Bank:Carol?secret=\(rfcSecret)&counter=7&algorithm=SHA512&digits=7", .hotp, .sha512, 7, 30, "Bank", "Carol", false),
        ("otpauth://totp/label?secret=\(rfcSecret)&issuer=Param%20Wins&digits=10", .totp, .sha1, 10, 30, "Param Wins", "label", false),
        ("otpauth://totp/Steam:dan?secret=\(rfcSecret)&encoder=steam", .totp, .sha1, 5, 30, "Steam", "dan", true),
        ("steam://\(rfcSecret)", .totp, .sha1, 5, 30, "Steam", "", true),
        ("  gezd gnbv gy3t qojq gezd gnbv gy3t qojq \n", .totp, .sha1, 6, 30, "", "", false),
    ])
    func parsesEveryForm(text: String, kind: OTPAuth.Kind, hash: OTPHash, digits: Int, period: Int,
                         issuer: String, account: String, steam: Bool) throws {
        let auth = try OTPAuth.parse(text)
        #expect(auth.kind == kind)
        #expect(auth.hash == hash)
        #expect(auth.digits == digits)
        #expect(auth.period == period)
        #expect(auth.issuer == issuer)
        #expect(auth.account == account)
        #expect(auth.isSteam == steam)
        #expect(auth.key == Secret(utf8: "12345678901234567890"))
        #expect(try OTPAuth.parse(auth.uri) == auth)
    }

    @Test(arguments: [
        "otpauth://totp/x?secret=\(rfcSecret)&algorithm=MD5",
        "otpauth://totp/x?secret=\(rfcSecret)&algorithm=",
        "otpauth://totp/x?secret=\(rfcSecret)&digits=5",
        "otpauth://totp/x?secret=\(rfcSecret)&digits=11",
        "otpauth://totp/x?secret=\(rfcSecret)&period=0",
        "otpauth://hotp/x?secret=\(rfcSecret)&counter=-1",
        "otpauth://motp/x?secret=\(rfcSecret)",
        "otpauth://totp/x?issuer=none",
        "otpauth://totp/x?secret=not*base32",
        "otpauth://totp/x?secret=\(rfcSecret)&encoder=steam&algorithm=SHA256",
        "https://example.com/?secret=\(rfcSecret)",
        "0189 not base32",
        "",
    ])
    func refusesWhatItCannotUse(text: String) {
        #expect(throws: KeychainError(.param, "")) { try OTPAuth.parse(text) }
    }

    @Test func anUnknownAlgorithmIsNamedAndTheSecretNever() {
        do {
            _ = try OTPAuth.parse("otpauth://totp/x?secret=\(Self.rfcSecret)&algorithm=SHA3")
            Issue.record("SHA3 was accepted")
        } catch {
            #expect(error.reason.contains("SHA3"))
            #expect(!error.reason.contains(Self.rfcSecret))
        }
    }

    /// RFC 4226 Appendix D's "Truncated" column, as 10 and 9 digits.
    @Test func nineAndTenDigitsFromTheTruncatedValue() throws {
        let ten = try OTPAuth.parse("otpauth://hotp/x?secret=\(Self.rfcSecret)&digits=10")
        #expect((0..<4).map { ten.code(counter: $0) } == ["1284755224", "1094287082", "0137359152", "1726969429"])
        var nine = ten
        nine.digits = 9
        #expect(nine.code(counter: 7) == "082162583")
    }

    /// KeePassXC's tests (TestTotp.cpp) and a zero key (otp by MAKS11060).
    @Test func steamCodes() throws {
        let steam = try OTPAuth.parse("otpauth://totp/Steam:x?secret=63BEDWCQZKTQWPESARIERL5DTTQFCJTK&encoder=steam")
        #expect(steam.code(at: 1511200518).code == "FR8RV")
        #expect(steam.code(at: 1511200714).code == "9P3VP")
        let zero = OTPAuth(key: Secret(SecureBytes(copying: [UInt8](repeating: 0, count: 20))), isSteam: true)
        #expect(zero.code(counter: 0) == "RYH4D")
        #expect(zero.code(counter: 1) == "DR2DK")
    }

    @Test func totpRemainingSecondsAndPeriod() throws {
        let auth = try OTPAuth.parse("otpauth://totp/x?secret=\(Self.rfcSecret)&digits=8")
        #expect(auth.code(at: 59) == OneTimeCode(code: "94287082", remaining: 1, period: 30))
        #expect(auth.code(at: 60).remaining == 30)
    }

    func item(_ account: String, otpauth: String, shared: Bool = false) -> Item {
        var item = internetItem("example.com", account, "pw", synchronizable: shared)
        item.otpauth = otpauth
        return item
    }

    @Test func hotpSavesTheNextCounterAndCodesNeverRepeat() throws {
        let vault = MemoryVault(items: VaultContents(local: [item("alice", otpauth: "otpauth://hotp/x?secret=\(Self.rfcSecret)&counter=0")]))
        let shelf = try Keyshelf(vault: vault)
        let codes = try (0..<3).map { _ in try shelf.oneTimeCode(server: server("example.com"), at: 0).code.code }
        #expect(codes == ["755224", "287082", "359152"])
        #expect(try OTPAuth.parse(vault.loadItems().local[0].otpauth).counter == 3)
    }

    @Test func sharedCodesNeedConsentAndMissingSecretsAreNotFound() throws {
        let vault = MemoryVault(items: VaultContents(
            local: [internetItem("example.com", "bob", "pw")],
            shared: [item("alice", otpauth: "otpauth://totp/x?secret=\(Self.rfcSecret)&digits=8", shared: true)]))
        let shelf = try Keyshelf(vault: vault)
        let site = server("example.com")
        #expect(throws: KeychainError(.userCanceled, "")) { try shelf.oneTimeCode(server: site, at: 59) }
        #expect(throws: KeychainError(.itemNotFound, "")) { try shelf.oneTimeCode(server: site, account: "bob", at: 59) }
        #expect(throws: KeychainError(.itemNotFound, "")) { try shelf.oneTimeCode(server: site, account: "nobody", at: 59) }
        shelf.consent = ApproveAll()
        #expect(try shelf.oneTimeCode(server: site, at: 59).code.code == "94287082")
    }

    @Test func setAsksBeforeReplacingASecretAndURIAlwaysAsks() throws {
        let vault = MemoryVault(items: VaultContents(local: [internetItem("example.com", "bob", "pw")]))
        let consent = ScriptedConsent([.declined, .declined, .approved])
        let shelf = try Keyshelf(vault: vault, consent: consent)
        let site = server("example.com")
        try shelf.setOneTimeSecret(try OTPAuth.parse(Self.rfcSecret), server: site, account: "bob")
        #expect(consent.requests.isEmpty)
        #expect(throws: KeychainError(.userCanceled, "")) {
            try shelf.setOneTimeSecret(try OTPAuth.parse("MZXW6"), server: site, account: "bob")
        }
        #expect(throws: KeychainError(.userCanceled, "")) { try shelf.oneTimeURI(server: site, account: "bob") }
        #expect(try shelf.oneTimeURI(server: site, account: "bob").contains("secret=\(Self.rfcSecret)"))
    }

    @Test func mergeKeepsTheLargerHOTPCounter() throws {
        let base = "otpauth://hotp/x?secret=\(Self.rfcSecret)&counter="
        var ours = item("alice", otpauth: base + "9", shared: true)
        var theirs = ours
        theirs.otpauth = base + "4"
        theirs.modificationDate = ours.modificationDate.addingTimeInterval(10)
        let merged = ItemMerge.merge(ours: [ours], theirs: [theirs])
        #expect(try OTPAuth.parse(merged[0].otpauth).counter == 9)
        ours.otpauth = "otpauth://hotp/x?secret=MZXW6&counter=9"
        #expect(try OTPAuth.parse(ItemMerge.merge(ours: [ours], theirs: [theirs])[0].otpauth).counter == 4)
    }
}
