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
}
