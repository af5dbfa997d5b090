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

    /// Renaming onto a saved account replaces it only with consent, and
    /// its password stays in the renamed item's history (hostile review).
    @Test func renamingOntoASavedAccountKeepsItsPasswordInTheHistory() throws {
        let (keyshelf, vault) = try shelf(consent: ApproveAll())
        try keyshelf.addGeneric(service: "wifi", account: "home", password: secret("psk-home"))
        try keyshelf.addGeneric(service: "wifi", account: "office", password: secret("psk-office"))
        try keyshelf.editGeneric(service: "wifi", account: "home", MetadataChanges(account: "office"))
        let live = try vault.loadItems().local.filter { !$0.isDeleted }
        #expect(live.map(\.account) == ["office"])
        #expect(live.first?.password?.text == "psk-home")
        #expect(live.first?.passwordHistory.map(\.password.text) == ["psk-office"])
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

    /// Issue 12 item 4: the facade searches generic passwords with the rules
    /// of `search` (service, account, label, notes; case folding; never
    /// across two entries), so the CLI and the TUI find the same.
    @Test func searchGenericsMatchesServiceAccountLabelAndNotesOnly() throws {
        let (keyshelf, _) = try shelf(consent: ApproveAll())
        try keyshelf.addGeneric(service: "Backup-Tool", account: "robot", password: secret("hunter2"), label: "Nightly Ünïcode", comment: "rotate in MAY")
        try keyshelf.addGeneric(service: "wifi", account: "home", password: secret("psk-secret"), synchronizable: true)
        try keyshelf.addGeneric(service: "api.example", account: "ci", password: secret("tok"))
        _ = try keyshelf.setPasswordRules("minlength: 20", for: server("example.com"))
        try keyshelf.add(server: server("backup.example"), account: "web", password: secret("w"), to: .local)
        for query in ["backup-tool", "ROBOT", "nightly ünïcode", "ÜNÏ", "may"] {
            #expect(keyshelf.searchGenerics(query).map(\.account) == ["robot"], "\(query)")
        }
        #expect(keyshelf.searchGenerics("").map(\.account) == ["robot", "ci", "home"], "all, sorted by service")
        #expect(keyshelf.searchGenerics("hunter2").isEmpty, "passwords are never searched")
        #expect(keyshelf.searchGenerics("psk").isEmpty)
        #expect(keyshelf.searchGenerics("toolrobot").isEmpty && keyshelf.searchGenerics("mayapi").isEmpty, "no match across fields or entries")
        #expect(keyshelf.searchGenerics("minlength").isEmpty && keyshelf.searchGenerics("keyshelf.").isEmpty, "reserved services are not searched")
        #expect(keyshelf.searchGenerics("backup.example").isEmpty, "web logins are `search`'s")
        #expect(keyshelf.search("backup").map(\.account) == ["web"])
        #expect(keyshelf.searchGenerics("i", in: .shared).map(\.account) == ["home"])
        #expect(keyshelf.searchGenerics("i", in: .local).map(\.account) == ["robot", "ci"])
        let all = keyshelf.genericEntries()
        for query in ["", "i", "robot", "zzz"] {
            #expect(keyshelf.searchGenericPositions(query).map { all[$0].id } == keyshelf.searchGenerics(query).map(\.id), "\(query)")
        }
        // A change replaces the snapshot: the next search sees it.
        try keyshelf.editGeneric(service: "wifi", account: "home", MetadataChanges(label: "Router"))
        #expect(keyshelf.searchGenerics("router").map(\.account) == ["home"])
    }
}
