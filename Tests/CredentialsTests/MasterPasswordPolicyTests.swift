import Testing
@testable import KeyshelfCredentials
import KeyshelfCrypto
import KeyshelfVault

@Suite struct MasterPasswordPolicyTests {
    @Test func fewerThanTwelveCharactersIsShort() {
        #expect(MasterPasswordPolicy.isShort(Secret(utf8: "abc")))
        #expect(MasterPasswordPolicy.isShort(Secret(utf8: "abcdefghijk")))
        #expect(!MasterPasswordPolicy.isShort(Secret(utf8: "abcdefghijkl")))
        #expect(MasterPasswordPolicy.isShort(Secret(utf8: "")))
    }

    @Test func charactersAreCountedNotBytes() {
        // 11 characters in 33 bytes of UTF-8: still short.
        #expect(MasterPasswordPolicy.isShort(Secret(utf8: String(repeating: "日", count: 11))))
        #expect(!MasterPasswordPolicy.isShort(Secret(utf8: String(repeating: "日", count: 12))))
    }
}

@Suite struct RevealPurposeTests {
    final class RecordingPrompt: UserPresencePrompt {
        var reasons: [String] = []
        func askMasterPassword(reason: String) -> Secret? {
            reasons.append(reason)
            return Secret(utf8: "master")
        }
    }

    @Test func theMasterPasswordReasonNamesWhatTheCallerDoes() throws {
        let vault = MemoryVault(items: VaultContents(local: [internetItem("example.com", "alice", "a", accessControl: .userPresence)]),
                                masterPassword: secret("master"))
        let keyshelf = try Keyshelf(vault: vault, consent: ApproveAll())
        let prompt = RecordingPrompt()
        keyshelf.userPresence = prompt
        let entry = keyshelf.accounts(of: server("example.com"))[0]
        _ = try keyshelf.reveal(entry)
        _ = try keyshelf.reveal(entry, for: .copy)
        #expect(prompt.reasons == ["show the password for \"alice\" on example.com", "copy the password for \"alice\" on example.com"])
    }
}
