import Foundation
import KeyshelfCrypto
import KeyshelfVault
import Testing
@testable import KeyshelfCredentials

/// Clock edge cases and every algorithm and digit count against RFC 6238
/// Appendix B (issue 16, "Tests and figures"); the copy rule of `--clip` and
/// the TUI (fewer than 5 s left: the next code); the TUI's per-entry codes.
@Suite struct OneTimeCodeClockTests {
    static let rfcSecret = OneTimeCodeTests.rfcSecret
    /// RFC 6238's keys in base32: 20, 32 and 64 bytes of "1234567890…".
    static let keys: [OTPHash: String] = [
        .sha1: rfcSecret,
        .sha256: OneTimePassword.base32Encode(Secret(utf8: "12345678901234567890123456789012")),
        .sha512: OneTimePassword.base32Encode(Secret(utf8: "1234567890123456789012345678901234567890123456789012345678901234")),
    ]
    /// RFC 6238 Appendix B, all six times: (time, SHA1, SHA256, SHA512), 8 digits.
    static let vectors: [(Int64, String, String, String)] = [
        (59, "94287082", "46119246", "90693936"),
        (1111111109, "07081804", "68084774", "25091201"),
        (1111111111, "14050471", "67062674", "99943326"),
        (1234567890, "89005924", "91819424", "93441116"),
        (2000000000, "69279037", "90698825", "38618901"),
        (20000000000, "65353130", "77737706", "47863826"),
    ]

    func totp(_ hash: OTPHash, digits: Int, period: Int = 30) throws -> OTPAuth {
        try OTPAuth.parse("otpauth://totp/x?secret=\(Self.keys[hash]!)&algorithm=\(hash.rawValue)&digits=\(digits)&period=\(period)")
    }

    /// 6 and 7 digits are the 8-digit vector's last digits; 9 and 10 end in it
    /// (value mod 10^d), so liboath's and keyshelf's own truncation both meet the RFC.
    @Test(arguments: [OTPHash.sha1, .sha256, .sha512], 6...10)
    func everyAlgorithmAndDigitCountMeetsRFC6238(hash: OTPHash, digits: Int) throws {
        let auth = try totp(hash, digits: digits)
        for (time, sha1, sha256, sha512) in Self.vectors {
            let vector = hash == .sha1 ? sha1 : hash == .sha256 ? sha256 : sha512
            let code = auth.code(at: time).code
            #expect(code.count == digits)
            if digits <= 8 {
                #expect(code == String(vector.suffix(digits)), "\(hash) \(digits) digits at \(time)")
            } else {
                #expect(code.hasSuffix(vector), "\(hash) \(digits) digits at \(time)")
            }
        }
    }

    @Test func periodBoundaries() throws {
        let auth = try totp(.sha1, digits: 8)
        #expect(auth.code(at: 0) == OneTimeCode(code: auth.code(counter: 0), remaining: 30, period: 30))
        #expect(auth.code(at: 29).remaining == 1)
        #expect(auth.code(at: 29).code == auth.code(at: 0).code)
        #expect(auth.code(at: 30) == OneTimeCode(code: auth.code(counter: 1), remaining: 30, period: 30))
        #expect(auth.code(at: 59).code == "94287082")
        #expect(auth.code(at: 60).code != "94287082")
        let minute = try totp(.sha1, digits: 6, period: 60)
        #expect(minute.code(at: 59).remaining == 1)
        #expect(minute.code(at: 60).remaining == 60)
        #expect(minute.code(at: 60).code == minute.code(counter: 1))
        let day = try totp(.sha1, digits: 6, period: OTPAuth.maximumPeriod)
        #expect(day.code(at: 86_399).remaining == 1)
        #expect(day.code(at: 86_400).code == day.code(counter: 1))
    }

    @Test func copyTimeWaitsForTheNextCodeWithFewerThanFiveSecondsLeft() throws {
        let auth = try totp(.sha1, digits: 6)
        #expect([0, 20, 25, 26, 29, 30, 59].map(auth.copyTime) == [0, 20, 25, 30, 30, 30, 60])
        // A period shorter than the threshold waits only when the period has begun.
        let short = try totp(.sha1, digits: 6, period: 3)
        #expect([0, 1, 2, 3].map(short.copyTime) == [0, 3, 3, 3])
        let second = try totp(.sha1, digits: 6, period: 1)
        #expect([5, 6].map(second.copyTime) == [5, 6])
        let hotp = try OTPAuth.parse("otpauth://hotp/x?secret=\(Self.rfcSecret)")
        #expect(hotp.copyTime(at: 29) == 29)
    }

    func item(_ account: String, otpauth: String, accessControl: AccessControl = .none, shared: Bool = false) -> Item {
        var item = internetItem("example.com", account, "pw", accessControl: accessControl, synchronizable: shared)
        item.otpauth = otpauth
        return item
    }

    @Test func copyGivesTheNextCodeAndWhenItStarts() throws {
        let vault = MemoryVault(items: VaultContents(local: [item("alice", otpauth: "otpauth://totp/x?secret=\(Self.rfcSecret)")]))
        let shelf = try Keyshelf(vault: vault)
        let soon = try shelf.oneTimeCodeToCopy(server: server("example.com"), at: 26)
        #expect(soon.validFrom == 30)
        #expect(soon.result.code == OneTimeCode(code: "287082", remaining: 30, period: 30))
        let now = try shelf.oneTimeCodeToCopy(server: server("example.com"), at: 20)
        #expect(now.validFrom == 20)
        #expect(now.result.code.code == "755224")
        let entry = try #require(shelf.entries().first)
        #expect(try shelf.oneTimeCodeToCopy(of: entry, at: 58) == (OneTimeCode(code: "359152", remaining: 30, period: 30), 60))
    }

    @Test func summariesSayWhichCodesCanBeShownLive() throws {
        var deleted = item("gone", otpauth: "otpauth://totp/x?secret=\(Self.rfcSecret)")
        deleted.isDeleted = true
        let vault = MemoryVault(items: VaultContents(
            local: [item("totp", otpauth: "otpauth://totp/x?secret=\(Self.rfcSecret)"),
                    item("hotp", otpauth: "otpauth://hotp/x?secret=\(Self.rfcSecret)"),
                    item("asks", otpauth: Self.rfcSecret, accessControl: .userPresence),
                    item("broken", otpauth: "otpauth://totp/x?secret=\(Self.rfcSecret)&algorithm=MD5"),
                    internetItem("example.com", "none", "pw"), deleted],
            shared: [item("shared", otpauth: "steam://\(Self.rfcSecret)", shared: true)]))
        let shelf = try Keyshelf(vault: vault)
        let byAccount = Dictionary(uniqueKeysWithValues: shelf.entries().map { ($0.account, $0.id) })
        let summaries = shelf.oneTimeCodeSummaries()
        #expect(summaries.count == 5)
        #expect(summaries[byAccount["totp"]!] == OneTimeCodeSummary(kind: .totp, live: true))
        #expect(summaries[byAccount["shared"]!] == OneTimeCodeSummary(kind: .totp, live: true))
        #expect(summaries[byAccount["hotp"]!] == OneTimeCodeSummary(kind: .hotp, live: false))
        #expect(summaries[byAccount["asks"]!] == OneTimeCodeSummary(kind: .totp, live: false))
        #expect(summaries[byAccount["broken"]!] == OneTimeCodeSummary(kind: nil, live: false))
        #expect(summaries[byAccount["none"]!] == nil)
    }

    @Test func entryCodesAskForUserPresenceAndAdvanceHOTP() throws {
        let vault = MemoryVault(items: VaultContents(local: [
            item("asks", otpauth: "otpauth://totp/x?secret=\(Self.rfcSecret)&digits=8", accessControl: .userPresence),
            item("hotp", otpauth: "otpauth://hotp/x?secret=\(Self.rfcSecret)"),
            internetItem("example.com", "none", "pw"),
        ]))
        let shelf = try Keyshelf(vault: vault)
        let entries = Dictionary(uniqueKeysWithValues: shelf.entries().map { ($0.account, $0) })
        #expect(throws: KeychainError(.userCanceled, "")) { try shelf.oneTimeCode(of: entries["asks"]!, at: 59) }
        shelf.userPresence = FixedMasterPassword(typed: "wrong")
        #expect(throws: KeychainError(.authFailed, "")) { try shelf.oneTimeCode(of: entries["asks"]!, at: 59) }
        shelf.userPresence = FixedMasterPassword(typed: "correct horse")
        #expect(try shelf.oneTimeCode(of: entries["asks"]!, at: 59).code == "94287082")
        #expect(try shelf.oneTimeCode(of: entries["hotp"]!, at: 0).code == "755224")
        #expect(try shelf.oneTimeCodeToCopy(of: entries["hotp"]!, at: 0) == (OneTimeCode(code: "287082", remaining: nil, period: nil), 0))
        #expect(try OTPAuth.parse(vault.loadItems().local[1].otpauth).counter == 2)
        #expect(throws: KeychainError(.itemNotFound, "")) { try shelf.oneTimeCode(of: entries["none"]!, at: 0) }
    }
}
