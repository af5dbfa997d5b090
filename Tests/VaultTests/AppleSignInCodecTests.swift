import Foundation
import Testing
import KeyshelfCrypto
@testable import KeyshelfVault

/// Tags 36–39: Sign in with Apple accounts and developer keys (docs/vault-format.md).
@Suite struct AppleSignInCodecTests {
    @Test func anAppleAccountRoundTripsWithoutAPassword() throws {
        let since = Date(timeIntervalSinceReferenceDate: 800_000_000)
        let item = Item(account: "x7@privaterelay.appleid.com", server: "shop.example", password: nil,
                        signInWithApple: AppleSignIn(hidesEmail: true, forwardingAddress: "me@example.net", since: since))
        let decoded = try RecordCodec.decode(encoded([item]))
        #expect(decoded == [item])
        #expect(decoded[0].password == nil && !decoded[0].isDeleted)
    }

    @Test func theFlagsByteIsTag36AndTheOtherFieldsFollow() throws {
        let plain = Item(account: "me@example.net", server: "a.example", password: nil)
        var apple = plain
        apple.signInWithApple = AppleSignIn(hidesEmail: false, since: Date(timeIntervalSinceReferenceDate: 0))
        let bytes = encoded([apple]).withUnsafeBytes { Array($0) }
        // Flags (3 bytes) and the date (10); an empty forwarding address is omitted.
        #expect(bytes.count == encoded([plain]).byteCount + 3 + 10)
        #expect(Array(bytes.suffix(13).prefix(3)) == [36, 1, 0])
        #expect(bytes.suffix(10).first == 38)
        #expect(try RecordCodec.decode(encoded([apple])) == [apple])
    }

    @Test func aTeamIDRoundTripsAsTag39() throws {
        let key = Item(itemClass: .genericPassword, account: "ABC123DEFG", service: "appleid.apple.com",
                       password: Secret(utf8: "-----BEGIN PRIVATE KEY-----"), appleTeamID: "TEAM123456")
        let bytes = encoded([key]).withUnsafeBytes { Array($0) }
        #expect(Array(bytes.suffix(12)) == [39, 10] + Array("TEAM123456".utf8))
        #expect(try RecordCodec.decode(encoded([key])) == [key])
    }

    @Test func anOldRecordReadsAsAPasswordAccount() throws {
        let item = Item(account: "me", server: "a.example", password: Secret(utf8: "pw"))
        let decoded = try RecordCodec.decode(encoded([item]))
        #expect(decoded[0].signInWithApple == nil && decoded[0].appleTeamID.isEmpty)
    }

    @Test(arguments: [
        ("me@privaterelay.appleid.com", true), ("ME@PrivateRelay.AppleID.com", true),
        ("me@example.com", false), ("privaterelay.appleid.com", false), ("@privaterelay.appleid.com", false),
        ("me@privaterelay.appleid.com.evil.example", false), ("me@xprivaterelay.appleid.com", false),
    ])
    func relayAddressesAreRecognised(address: String, relay: Bool) {
        #expect(AppleSignIn.isRelayAddress(address) == relay)
    }
}
