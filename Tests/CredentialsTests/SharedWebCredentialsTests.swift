import Foundation
import KeyshelfCrypto
import KeyshelfVault
import Testing
@testable import KeyshelfCredentials

@Suite struct SharedWebCredentialsTests {
    let site = server("example.com")

    @Test func addingANewRecordDoesNotPrompt() throws {
        var shared = SharedWebCredentials()
        let consent = ScriptedConsent()
        #expect(try shared.add(server: site, account: "alice", password: secret("one"), consent: consent) == .added)
        #expect(consent.requests.isEmpty)
        #expect(shared.items.count == 1)
        #expect(shared.items[0].synchronizable)
        #expect(!shared.items[0].accessible.isThisDeviceOnly)
    }

    @Test func updatingAsksConsentFirst() throws {
        var shared = SharedWebCredentials()
        try shared.add(server: site, account: "alice", password: secret("one"), consent: DeclineAll())
        let consent = ScriptedConsent([.approved])
        #expect(try shared.add(server: site, account: "alice", password: secret("two"), consent: consent) == .updated)
        #expect(consent.requests == [.update(server: site, account: "alice")])
        #expect(shared.items[0].password?.text == "two")
    }

    @Test func declinedUpdateChangesNothingAndIsUserCanceled() throws {
        var shared = SharedWebCredentials()
        try shared.add(server: site, account: "alice", password: secret("one"), consent: DeclineAll())
        let before = shared.items
        #expect(throws: KeychainError(.userCanceled, "")) {
            try shared.add(server: site, account: "alice", password: secret("two"), consent: ScriptedConsent([.declined]))
        }
        #expect(shared.items == before)
    }

    @Test func theSamePasswordAgainChangesNothingAndAsksNobody() throws {
        var shared = SharedWebCredentials()
        try shared.add(server: site, account: "alice", password: secret("one"), consent: DeclineAll())
        let consent = ScriptedConsent()
        #expect(try shared.add(server: site, account: "alice", password: secret("one"), consent: consent) == .unchanged)
        #expect(consent.requests.isEmpty)
    }

    @Test func nilPasswordDeletesAfterConsent() throws {
        var shared = SharedWebCredentials()
        try shared.add(server: site, account: "alice", password: secret("one"), consent: DeclineAll())
        let before = shared.items
        #expect(throws: KeychainError(.userCanceled, "")) {
            try shared.add(server: site, account: "alice", password: nil, consent: DeclineAll())
        }
        #expect(shared.items == before)
        let consent = ScriptedConsent([.approved])
        #expect(try shared.add(server: site, account: "alice", password: nil, consent: consent) == .deleted)
        #expect(consent.requests == [.delete(server: site, account: "alice")])
        #expect(shared.items.count == 1 && shared.items[0].isDeleted)
        #expect(try shared.request(server: site, account: nil, consent: ApproveAll()).isEmpty)
        #expect(throws: KeychainError(.itemNotFound, "")) {
            try shared.add(server: site, account: "alice", password: nil, consent: ApproveAll())
        }
    }

    @Test func requestReleasesOnlyWithConsent() throws {
        var shared = SharedWebCredentials()
        try shared.add(server: site, account: "bob", password: secret("b"), consent: DeclineAll())
        try shared.add(server: site, account: "alice", password: secret("a"), consent: DeclineAll())
        let decline = ScriptedConsent([.declined])
        #expect(throws: KeychainError(.userCanceled, "")) {
            try shared.request(server: site, account: nil, consent: decline)
        }
        #expect(decline.requests == [.release(server: site, accounts: ["alice", "bob"])])

        let pick = ScriptedConsent([.chose(account: "bob")])
        let chosen = try shared.request(server: site, account: nil, consent: pick)
        #expect(chosen.map(\.account) == ["bob"])
        #expect(chosen[0].password.text == "b")

        let all = try shared.request(server: site, account: nil, consent: ApproveAll())
        #expect(all.map(\.account) == ["alice", "bob"])
    }

    @Test func noMatchIsAnEmptyResultNotAnErrorAndAsksNobody() throws {
        var shared = SharedWebCredentials()
        try shared.add(server: site, account: "alice", password: secret("a"), consent: DeclineAll())
        let consent = ScriptedConsent()
        #expect(try shared.request(server: server("other.example"), account: nil, consent: consent).isEmpty)
        #expect(try shared.request(server: site, account: "carol", consent: consent).isEmpty)
        #expect(try shared.request(server: server("example.com:8443"), account: nil, consent: consent).isEmpty)
        #expect(consent.requests.isEmpty)
    }

    @Test func recordsReportThePortOnlyWhenNot443() throws {
        var shared = SharedWebCredentials()
        try shared.add(server: server("https://example.com:443"), account: "a", password: secret("1"), consent: DeclineAll())
        try shared.add(server: server("example.com:8443"), account: "b", password: secret("2"), consent: DeclineAll())
        try shared.add(server: server("http://example.com"), account: "c", password: secret("3"), consent: DeclineAll())
        let records = try shared.request(server: nil, account: nil, consent: ApproveAll())
        let ports = Dictionary(uniqueKeysWithValues: records.map { ($0.account, $0.port) })
        #expect(ports == ["a": nil, "b": 8443, "c": 80])
    }

    @Test func nilServerAsksOncePerDomain() throws {
        var shared = SharedWebCredentials()
        try shared.add(server: site, account: "alice", password: secret("a"), consent: DeclineAll())
        try shared.add(server: server("other.example"), account: "alice", password: secret("b"), consent: DeclineAll())
        let consent = ScriptedConsent([.approved, .declined])
        let records = try shared.request(server: nil, account: "alice", consent: consent)
        #expect(consent.requests.count == 2)
        #expect(records.map(\.server) == [site])
    }

    @Test func generatePasswordIsTheGenerator() {
        #expect(SharedWebCredentials.generatePassword().byteCount == 15)
    }
}

@Suite struct ConsentRequestTests {
    let site = server("bücher.example:8443")

    @Test func titlesMessagesAndButtonsFollowDesign() {
        let update = ConsentRequest.update(server: site, account: "alice")
        #expect(update.title == "Update Saved Password?")
        #expect(update.buttons == ["Not Now", "Update"])
        #expect(update.message.contains("alice") && update.message.contains("bücher.example:8443"))

        let delete = ConsentRequest.delete(server: site, account: "alice")
        #expect(delete.title == "Delete Saved Password?")
        #expect(delete.buttons == ["Cancel", "Delete"])
        #expect(delete.message.contains("alice") && delete.message.contains("bücher.example"))

        let release = ConsentRequest.release(server: site, accounts: ["alice", "bob"])
        #expect(release.title == "Use Saved Password for bücher.example:8443?")
        #expect(release.buttons == ["Not Now", "alice", "bob"])
        #expect(release.answer(forButton: 0) == .declined)
        #expect(release.answer(forButton: 2) == .chose(account: "bob"))
        #expect(update.answer(forButton: 0) == .declined)
        #expect(update.answer(forButton: 1) == .approved)
    }

    @Test func hostileAccountNamesStayInert() {
        let request = ConsentRequest.release(server: site, accounts: ["a\u{1B}]0;pwned\u{07}", "b"])
        #expect(!request.message.contains("\u{1B}"))
        #expect(request.buttons.allSatisfy { !$0.contains("\u{1B}") && !$0.contains("\u{07}") })
        #expect(request.answer(forButton: 1) == .chose(account: "a\u{1B}]0;pwned\u{07}"))
        let update = ConsentRequest.update(server: site, account: "x\u{9B}31m")
        #expect(!update.message.unicodeScalars.contains("\u{9B}"))
    }

    @Test func fixedPolicies() {
        let request = ConsentRequest.delete(server: site, account: "a")
        #expect(DeclineAll().ask(request) == .declined)
        #expect(ApproveAll().ask(request) == .approved)
    }
}

@Suite struct ItemMergeTests {
    func at(_ seconds: Double) -> Date { Date(timeIntervalSince1970: seconds) }

    @Test func laterEditWinsAndTombstonesKeepDeletedItemsDeleted() {
        var base = internetItem("example.com", "alice", "old", synchronizable: true, date: at(100))
        var edited = base
        edited.password = secret("new")
        edited.modificationDate = at(200)
        var deleted = internetItem("example.com", "bob", "b", synchronizable: true, date: at(100))
        let bobLive = deleted
        deleted.markDeleted(at: at(300))
        let carol = internetItem("example.com", "carol", "c", synchronizable: true, date: at(150))

        let ours = [base, deleted]
        let theirs = [edited, bobLive, carol]
        let merged = ItemMerge.merge(ours: ours, theirs: theirs)
        #expect(merged.count == 3)
        #expect(merged.first { $0.account == "alice" }?.password?.text == "new")
        #expect(merged.first { $0.account == "bob" }?.isDeleted == true)
        #expect(merged.first { $0.account == "carol" }?.password?.text == "c")
        // The other direction gives the same items.
        let reverse = ItemMerge.merge(ours: theirs, theirs: ours)
        #expect(Set(reverse.map(\.id)) == Set(merged.map(\.id)))
        for item in merged { #expect(reverse.first { $0.id == item.id } == item) }
        base.modificationDate = at(50)
        #expect(ItemMerge.merge(ours: [base], theirs: merged).first { $0.id == base.id }?.password?.text == "new")
    }

    @Test func theSameAccountAddedOnTwoMachinesKeepsTheLaterOne() {
        let mine = internetItem("example.com", "alice", "mine", synchronizable: true, date: at(100))
        let yours = internetItem("example.com", "alice", "yours", synchronizable: true, date: at(200))
        let merged = ItemMerge.merge(ours: [mine], theirs: [yours])
        let live = merged.filter { !$0.isDeleted }
        #expect(live.count == 1)
        #expect(live[0].password?.text == "yours")
        #expect(merged.count == 2)
        #expect(ItemMerge.merge(ours: merged, theirs: [mine]) == merged)
    }

    @Test func thisDeviceOnlyItemsAreDropped() {
        let local = internetItem("example.com", "alice", "a", accessible: .whenUnlockedThisDeviceOnly)
        #expect(ItemMerge.merge(ours: [local], theirs: []).isEmpty)
    }
}
