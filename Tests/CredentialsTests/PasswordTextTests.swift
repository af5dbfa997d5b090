import Foundation
import KeyshelfCrypto
import KeyshelfVault
import Testing
@testable import KeyshelfCredentials

/// Passwords must be UTF-8 text without NUL, so `get --json` and `export` can
/// always carry them; every add and update path refuses anything else.
@Suite struct PasswordTextTests {
    static let notText: [[UInt8]] = [[0xFF, 0xFE, 0x41], [0x61, 0x00, 0x62], [0xC3], [0xED, 0xA0, 0x80]]

    @Test func textIsValidAndBytesThatAreNotAreRefused() {
        #expect(PasswordText.isValid(Secret(utf8: "pä$$ wörd 🔑")))
        #expect(PasswordText.isValid(Secret(utf8: "")))
        for bytes in Self.notText { #expect(!PasswordText.isValid(Secret(SecureBytes(copying: bytes))), "\(bytes)") }
    }

    @Test(arguments: notText)
    func localStoreAddAndUpdateRefuseWithErrSecParam(bytes: [UInt8]) throws {
        var store = LocalStore()
        var item = internetItem("bin.example", "u", "x")
        item.password = Secret(SecureBytes(copying: bytes))
        do {
            try store.add(item)
            Issue.record("accepted \(bytes)")
        } catch let error as KeychainError {
            #expect(error.status == .param)
            #expect(error.reason.contains("must be UTF-8 text without NUL"))
            #expect(error.reason.contains("bin.example"))
        }
        #expect(store.items.isEmpty)

        try store.add(internetItem("bin.example", "u", "good"))
        #expect(throws: KeychainError(.param, "")) {
            try store.update(.internet(server("bin.example"), account: "u"), with: ItemChanges(password: Secret(SecureBytes(copying: bytes))))
        }
        #expect(store.items[0].password == secret("good"))
        // A change that leaves the password alone still works.
        try store.update(.internet(server("bin.example"), account: "u"), with: ItemChanges(comment: "note"))
    }

    @Test func sharedAddRefusesBeforeAskingConsent() throws {
        var shared = SharedWebCredentials()
        try shared.add(server: server("bin.example"), account: "u", password: secret("one"), consent: DeclineAll())
        let consent = ScriptedConsent(otherwise: .approved)
        for bytes in Self.notText {
            #expect(throws: KeychainError(.param, "")) {
                try shared.add(server: server("bin.example"), account: "u", password: Secret(SecureBytes(copying: bytes)), consent: consent)
            }
            #expect(throws: KeychainError(.param, "")) {
                try shared.add(server: server("new.example"), account: "u", password: Secret(SecureBytes(copying: bytes)), consent: consent)
            }
        }
        #expect(consent.requests.isEmpty)
        #expect(shared.items.count == 1)
        #expect(shared.items[0].password == secret("one"))
    }
}
