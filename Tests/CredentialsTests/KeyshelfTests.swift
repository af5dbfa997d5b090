import Foundation
import KeyshelfCrypto
import KeyshelfVault
import Testing
@testable import KeyshelfCredentials

@Suite struct KeyshelfTests {
    let site = server("example.com")

    func shelf(local: [Item] = [], shared: [Item] = [], consent: any Consent = DeclineAll()) throws -> (Keyshelf, MemoryVault) {
        let vault = MemoryVault(items: VaultContents(local: local, shared: shared))
        return (try Keyshelf(vault: vault, consent: consent), vault)
    }

    @Test func domainsAccountsAndStores() throws {
        let (keyshelf, _) = try shelf(
            local: [internetItem("example.com", "alice", "a"), internetItem("bücher.example", "bob", "b", port: 8443)],
            shared: [internetItem("example.com", "carol", "c", synchronizable: true),
                     internetItem("zeta.example", "dan", "d", synchronizable: true)])
        let domains = keyshelf.domains()
        #expect(domains.map(\.server.display) == ["bücher.example:8443", "example.com", "zeta.example"])
        #expect(domains.map(\.accountCount) == [1, 2, 1])
        #expect(domains[1].stores == [.local, .shared])
        #expect(keyshelf.domains(in: .shared).map(\.server.display) == ["example.com", "zeta.example"])
        #expect(keyshelf.domains(in: .local)[1].accountCount == 1)
        #expect(keyshelf.accounts(of: site).map(\.account) == ["alice", "carol"])
        #expect(keyshelf.accounts(of: site, in: .shared).map(\.store) == [.shared])
    }

    @Test func searchCoversServersAccountsAndNotesCaseInsensitively() throws {
        var noted = internetItem("zeta.example", "dan", "d")
        noted.comment = "Recovery codes in the SAFE"
        let (keyshelf, _) = try shelf(local: [internetItem("Bücher.example", "Alice", "a"), noted, internetItem("example.com", "bob", "b")])
        #expect(keyshelf.search("BÜCH").map(\.account) == ["Alice"])
        #expect(keyshelf.search("xn--bcher").map(\.account) == ["Alice"])
        #expect(keyshelf.search("alice").map(\.account) == ["Alice"])
        #expect(keyshelf.search("safe").map(\.account) == ["dan"])
        #expect(keyshelf.search("").count == 3)
        #expect(keyshelf.search("nothing-like-this").isEmpty)
        #expect(keyshelf.searchDomains("example").map(\.server.displayHost) == ["bücher.example", "example.com", "zeta.example"])
        // Passwords are never searched.
        #expect(keyshelf.search("d").map(\.account).contains("dan"))
        #expect(keyshelf.search("b").count == 2)
    }

    /// `searchPositions` is `search` as positions in `entries()` (the TUI's filter).
    @Test func searchPositionsPointAtTheEntriesSearchReturns() throws {
        var noted = internetItem("zeta.example", "dan", "d")
        noted.label = "Recovery"
        let (keyshelf, _) = try shelf(local: [internetItem("Bücher.example", "Alice", "a"), noted, internetItem("example.com", "bob", "b")])
        let entries = keyshelf.entries()
        for query in ["", "recovery", "b", "xn--bcher", "zzz"] {
            #expect(keyshelf.searchPositions(query).map { entries[$0].id } == keyshelf.search(query).map(\.id), "\(query)")
        }
    }

    @Test func searchNeverMatchesAcrossTwoEntriesAndUnfoldedPortsJoinTheirDomain() throws {
        // "zz" ends one key and "top" starts... no key; the pair must not match.
        var explicit443 = internetItem("example.com", "carol", "c")
        explicit443.port = 443
        let (keyshelf, _) = try shelf(local: [internetItem("a.example", "xxzz", "1"), internetItem("b.example", "topyy", "2"), explicit443,
                                              internetItem("example.com", "alice", "a")])
        #expect(keyshelf.search("zz\nb.example").isEmpty)
        #expect(keyshelf.search("zzb").isEmpty)
        let domain = keyshelf.domains().filter { $0.server == site }
        #expect(domain.count == 1)
        #expect(domain.first?.accountCount == 2)
        #expect(keyshelf.accounts(of: site).map(\.account) == ["alice", "carol"])
        #expect(try keyshelf.get(server: site, account: "carol").password?.text == "c")
    }

    @Test func getLooksLocalFirstThenSharedWithConsent() throws {
        let consent = ScriptedConsent([.approved])
        let (keyshelf, _) = try shelf(
            local: [internetItem("example.com", "alice", "local")],
            shared: [internetItem("example.com", "alice", "shared", synchronizable: true),
                     internetItem("other.example", "bob", "b", synchronizable: true)],
            consent: consent)
        let local = try keyshelf.get(server: site)
        #expect(local.password?.text == "local")
        #expect(local.store == .local)
        #expect(consent.requests.isEmpty)
        #expect(try keyshelf.get(server: site, in: .shared).password?.text == "shared")
        #expect(consent.requests.count == 1)
        #expect(throws: KeychainError(.userCanceled, "")) { try keyshelf.get(server: server("other.example")) }
        #expect(throws: KeychainError(.itemNotFound, "")) { try keyshelf.get(server: server("nowhere.example")) }
        #expect(throws: KeychainError(.itemNotFound, "")) { try keyshelf.get(server: site, account: "zoe") }
    }

    @Test func jsonRecordHasTheDesignFields() throws {
        let record = CredentialRecord(server: server("bücher.example:8443"), account: "alice", password: secret("pw"), store: .shared)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let json = String(decoding: try encoder.encode(record), as: UTF8.self)
        #expect(json == #"{"account":"alice","password":"pw","port":8443,"server":"bücher.example","store":"shared"}"#)
        let listed = CredentialRecord(server: site, account: "bob", password: nil, store: .local)
        #expect(String(decoding: try encoder.encode(listed), as: UTF8.self) == #"{"account":"bob","server":"example.com","store":"local"}"#)
    }

    @Test func addIsConsentGatedInBothStores() throws {
        let consent = ScriptedConsent([.declined, .approved])
        let (keyshelf, vault) = try shelf(consent: consent)
        #expect(try keyshelf.add(server: site, account: "alice", password: secret("one"), to: .local) == .added)
        #expect(try keyshelf.add(server: site, account: "alice", password: secret("one"), to: .shared) == .added)
        #expect(consent.requests.isEmpty)
        let saves = vault.saveCount
        #expect(throws: KeychainError(.userCanceled, "")) {
            try keyshelf.add(server: site, account: "alice", password: secret("two"), to: .local)
        }
        #expect(vault.saveCount == saves)
        #expect(try keyshelf.add(server: site, account: "alice", password: secret("two"), to: .local) == .updated)
        #expect(try vault.loadItems().local[0].password?.text == "two")
        #expect(try vault.loadItems().shared[0].password?.text == "one")
        #expect(keyshelf.accounts(of: site).count == 2)
    }

    @Test func thisDeviceOnlyItemsNeverGoToShared() throws {
        let (keyshelf, vault) = try shelf(consent: ApproveAll())
        try keyshelf.add(server: site, account: "alice", password: secret("a"), to: .local, accessible: .whenUnlockedThisDeviceOnly)
        #expect(throws: KeychainError(.param, "")) {
            try keyshelf.add(server: site, account: "bob", password: secret("b"), to: .shared, accessible: .afterFirstUnlockThisDeviceOnly)
        }
        // The login flow uses the local item and does not copy it to shared.
        let result = try keyshelf.login(server: site, prompt: ScriptedPrompt([]))
        #expect(result.source == .local)
        #expect(try vault.loadItems().shared.isEmpty)
        // Even a direct write is refused by the vault.
        #expect(throws: KeychainError(.param, "")) {
            try vault.modifyItems { $0.shared.append(internetItem("example.com", "eve", "e", accessible: .whenUnlockedThisDeviceOnly)) }
        }
    }

    @Test(arguments: Accessible.allCases)
    func everyAccessibleClassIsKeptAndOnlySharableOnesReachShared(accessible: Accessible) throws {
        let (keyshelf, vault) = try shelf(consent: ApproveAll())
        try keyshelf.add(server: site, account: "alice", password: secret("a"), to: .local, accessible: accessible)
        #expect(keyshelf.accounts(of: site)[0].accessible == accessible)
        let local = LocalStore(items: try vault.loadItems().local)
        #expect(try local.copyMatching(ItemQuery(accessible: accessible, synchronizable: false)).count == 1)
        if accessible.isThisDeviceOnly {
            #expect(throws: KeychainError(.param, "")) {
                try keyshelf.add(server: site, account: "alice", password: secret("a"), to: .shared, accessible: accessible)
            }
            #expect(try vault.loadItems().shared.isEmpty)
        } else {
            try keyshelf.add(server: site, account: "alice", password: secret("a"), to: .shared, accessible: accessible)
            #expect(try vault.loadItems().shared.map(\.synchronizable) == [true])
        }
    }

    /// A vault that records whether a change went through `addItem` (the
    /// vault writes the added item only) or `modifyItems` (the whole store).
    final class PathRecordingVault: CredentialVault {
        let base = MemoryVault()
        var added = 0
        var modified = 0
        func loadItems() throws -> StoredItems { try base.loadItems() }
        func modifyItems<T>(_ body: (inout StoredItems) throws -> T) throws -> T {
            modified += 1
            return try base.modifyItems(body)
        }
        func addItem(to store: Store, _ body: (StoredItems) throws -> Item?) throws -> Bool {
            let done = try base.addItem(to: store, body)
            if done { added += 1 }
            return done
        }
        func verifyPassword(_ password: Secret) -> Bool { false }
        func changeMasterPassword(from current: Secret, to newPassword: Secret) throws {
            try base.changeMasterPassword(from: current, to: newPassword)
        }
        var revision: Int { base.revision }
    }

    @Test(arguments: Store.allCases)
    func onlyANewCredentialIsAddedAtTheEnd(store: Store) throws {
        let vault = PathRecordingVault()
        let keyshelf = try Keyshelf(vault: vault, consent: ApproveAll())
        #expect(try keyshelf.add(server: site, account: "alice", password: secret("one"), to: store) == .added)
        #expect(try keyshelf.add(server: site, account: "bob", password: secret("two"), to: store) == .added)
        #expect((vault.added, vault.modified) == (2, 0))
        #expect(try vault.loadItems()[store].map(\.account) == ["alice", "bob"])

        // Another password for alice, then a new one after her deletion: both edit the store in place.
        #expect(try keyshelf.add(server: site, account: "alice", password: secret("three"), to: store) == .updated)
        let id = try vault.loadItems()[store][0].id
        _ = try keyshelf.delete(server: site, account: "alice")
        #expect(try keyshelf.add(server: site, account: "alice", password: secret("four"), to: store) == .added)
        #expect(vault.added == 2)
        let items = try vault.loadItems()[store]
        #expect(items.map(\.account) == ["alice", "bob"] && items[0].id == id && !items[0].isDeleted, "the tombstone was revived in place")
        #expect(items[0].password?.text == "four")
    }

    /// A vault whose reads lag behind its writes, as when another process
    /// saved between the dry run and the locked run.
    final class LaggingVault: CredentialVault {
        let stale: StoredItems
        let real: MemoryVault
        init(stale: StoredItems, real: StoredItems) {
            self.stale = stale
            self.real = MemoryVault(items: real)
        }
        func loadItems() throws -> StoredItems { stale }
        func modifyItems<T>(_ body: (inout StoredItems) throws -> T) throws -> T { try real.modifyItems(body) }
        func verifyPassword(_ password: Secret) -> Bool { false }
        func changeMasterPassword(from current: Secret, to newPassword: Secret) throws {
            try real.changeMasterPassword(from: current, to: newPassword)
        }
        var revision: Int { real.revision }
    }

    @Test func aQuestionThatOnlyTheLockedRunMeetsIsStillAsked() throws {
        let vault = LaggingVault(stale: StoredItems(), real: StoredItems(shared: [internetItem("example.com", "alice", "theirs", synchronizable: true)]))
        let consent = ScriptedConsent([.declined])
        let keyshelf = try Keyshelf(vault: vault, consent: consent)
        #expect(throws: KeychainError(.userCanceled, "")) {
            try keyshelf.add(server: site, account: "alice", password: secret("mine"), to: .shared)
        }
        #expect(consent.requests == [.update(server: site, account: "alice")])
        #expect(try vault.real.loadItems().shared.compactMap { $0.password?.text } == ["theirs"])
    }

    @Test func deleteAsksOnceForBothStoresAndLeavesTombstones() throws {
        let consent = ScriptedConsent([.declined, .approved])
        let (keyshelf, vault) = try shelf(
            local: [internetItem("example.com", "alice", "a")],
            shared: [internetItem("example.com", "alice", "a", synchronizable: true)],
            consent: consent)
        #expect(throws: KeychainError(.userCanceled, "")) { try keyshelf.delete(server: site, account: "alice") }
        #expect(vault.saveCount == 0)
        #expect(try keyshelf.delete(server: site, account: "alice") == [.local, .shared])
        #expect(consent.requests == [.delete(server: site, account: "alice"), .delete(server: site, account: "alice")])
        let items = try vault.loadItems()
        #expect(items.local.allSatisfy(\.isDeleted) && items.shared.allSatisfy(\.isDeleted))
        #expect(keyshelf.domains().isEmpty)
        #expect(throws: KeychainError(.itemNotFound, "")) { try keyshelf.delete(server: site, account: "alice") }
    }

    @Test func editAndDeleteAnEntry() throws {
        let consent = ScriptedConsent([.approved, .approved])
        let (keyshelf, vault) = try shelf(local: [internetItem("example.com", "alice", "a"), internetItem("example.com", "bob", "b")], consent: consent)
        let alice = keyshelf.accounts(of: site)[0]
        try keyshelf.update(alice, CredentialChanges(comment: "work"))
        #expect(consent.requests.isEmpty)
        try keyshelf.update(alice, CredentialChanges(password: secret("a2")))
        #expect(consent.requests == [.update(server: site, account: "alice")])
        #expect(throws: KeychainError(.duplicateItem, "")) { try keyshelf.update(alice, CredentialChanges(account: "bob")) }
        #expect(keyshelf.accounts(of: site)[0].comment == "work")
        #expect(try keyshelf.reveal(keyshelf.accounts(of: site)[0]).text == "a2")
        try keyshelf.delete(keyshelf.accounts(of: site)[1])
        #expect(keyshelf.accounts(of: site).map(\.account) == ["alice"])
        #expect(try vault.loadItems().local.filter(\.isDeleted).map(\.account) == ["bob"])
    }

    @Test func userPresenceItemsReaskTheMasterPassword() throws {
        let vault = MemoryVault(items: VaultContents(local: [internetItem("example.com", "alice", "a", accessControl: .userPresence)]),
                                masterPassword: secret("master"))
        let keyshelf = try Keyshelf(vault: vault, consent: ApproveAll())
        let entry = keyshelf.accounts(of: site)[0]
        #expect(throws: KeychainError(.userCanceled, "")) { try keyshelf.reveal(entry) }
        keyshelf.userPresence = FixedMasterPassword(typed: "wrong")
        #expect(throws: KeychainError(.authFailed, "")) { try keyshelf.reveal(entry) }
        #expect(throws: KeychainError(.authFailed, "")) { try keyshelf.get(server: site) }
        #expect(throws: KeychainError(.authFailed, "")) { try keyshelf.update(entry, CredentialChanges(accessControl: AccessControl.none)) }
        keyshelf.userPresence = FixedMasterPassword(typed: "master")
        #expect(try keyshelf.reveal(entry).text == "a")
        #expect(try keyshelf.get(server: site).password?.text == "a")
    }

    @Test func worksOverARealVaultSession() throws {
        let url = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("keyshelf-credentials-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: url) }
        let directory = VaultDirectory(url: url)
        let session = try directory.create(password: secret("master"), limits: .minimum)
        let keyshelf = try Keyshelf(vault: session, consent: ApproveAll())
        try keyshelf.add(server: server("bücher.example"), account: "alice", password: secret("a"), to: .shared)
        try keyshelf.add(server: site, account: "bob", password: secret("b"), to: .local)
        session.lock()

        let reopened = try Keyshelf(vault: directory.unlock(password: secret("master")), consent: ApproveAll())
        #expect(reopened.domains().map(\.server.display) == ["bücher.example", "example.com"])
        #expect(try reopened.get(server: server("xn--bcher-kva.example")).password?.text == "a")
        #expect(try reopened.get(server: site).store == .local)
    }
}
