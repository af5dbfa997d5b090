import Foundation
import KeyshelfCrypto
import KeyshelfVault
import Testing
@testable import KeyshelfCredentials

/// Issue 13 rule 4: generic passwords (`kSecClassGenericPassword`) in the domain layer.
@Suite struct GenericPasswordTests {
    func shelf(consent: any Consent = DeclineAll()) throws -> (Keyshelf, MemoryVault) {
        let vault = MemoryVault()
        return (try Keyshelf(vault: vault, consent: consent), vault)
    }

    @Test func localUnlessSynchronizableAndNeverReleasedAsASharedWebCredential() throws {
        let (keyshelf, vault) = try shelf(consent: ApproveAll())
        #expect(try keyshelf.addGeneric(service: "api.example", account: "ci", password: secret("tok")).store == .local)
        #expect(try keyshelf.addGeneric(service: "wifi", account: "home", password: secret("psk"), synchronizable: true).store == .shared)
        let items = try vault.loadItems()
        #expect(items.local.map(\.itemClass) == [.genericPassword])
        #expect(items.shared.first?.synchronizable == true)
        #expect(try SharedWebCredentials(items: items.shared).request(server: nil, account: nil, consent: ApproveAll()).isEmpty)
        #expect(keyshelf.entries().isEmpty, "web listings hold web logins only")
        #expect(keyshelf.genericEntries().map(\.service) == ["api.example", "wifi"])
        #expect(try keyshelf.genericPassword(service: "wifi", account: nil).password.text == "psk")
    }

    @Test func aChangeAsksConsentAndStaysInItsStore() throws {
        let consent = ScriptedConsent([.declined, .approved])
        let (keyshelf, vault) = try shelf(consent: consent)
        try keyshelf.addGeneric(service: "wifi", account: "home", password: secret("one"), synchronizable: true)
        #expect(throws: KeychainError(.userCanceled, "")) { try keyshelf.addGeneric(service: "wifi", account: "home", password: secret("two")) }
        let changed = try keyshelf.addGeneric(service: "wifi", account: "home", password: secret("two"), label: "Home Wi-Fi")
        #expect(changed.outcome == .updated && changed.store == .shared)
        #expect(consent.requests == [.updateService(service: "wifi", account: "home"), .updateService(service: "wifi", account: "home")])
        #expect(try vault.loadItems().shared.first?.label == "Home Wi-Fi")
        #expect(try keyshelf.addGeneric(service: "wifi", account: "home", password: secret("two")).outcome == .unchanged)
    }

    @Test func severalAccountsReservedServicesAndDeletion() throws {
        let (keyshelf, vault) = try shelf(consent: ApproveAll())
        try keyshelf.addGeneric(service: "api", account: "a", password: secret("1"))
        try keyshelf.addGeneric(service: "api", account: "b", password: secret("2"))
        #expect(throws: KeychainError(.param, "")) { try keyshelf.genericPassword(service: "api", account: nil) }
        #expect(try keyshelf.genericPassword(service: "api", account: "b").password.text == "2")
        #expect(throws: KeychainError(.param, "")) { try keyshelf.addGeneric(service: "keyshelf.passwordrules", account: "x", password: secret("p")) }
        _ = try keyshelf.setPasswordRules("minlength: 20", for: server("example.com"))
        #expect(keyshelf.genericEntries().map(\.account) == ["a", "b"], "password rules are not listed")
        #expect(try keyshelf.deleteGeneric(service: "api", account: "a") == .local)
        #expect(try vault.loadItems().local.first { $0.account == "a" }?.isDeleted == true)
        #expect(throws: KeychainError(.itemNotFound, "")) { try keyshelf.genericPassword(service: "api", account: "a") }
    }
}
