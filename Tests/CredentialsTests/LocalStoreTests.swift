import Foundation
import KeyshelfCrypto
import KeyshelfVault
import Testing
@testable import KeyshelfCredentials

@Suite struct LocalStoreTests {
    @Test func addRefusesAnExistingPrimaryKey() throws {
        var store = LocalStore()
        try store.add(internetItem("example.com", "alice", "one"))
        #expect(throws: KeychainError(.duplicateItem, "")) {
            try store.add(internetItem("example.com", "alice", "two"))
        }
        // Another port, account or path is another primary key.
        try store.add(internetItem("example.com", "alice", "three", port: 8443))
        try store.add(internetItem("example.com", "bob", "four"))
        var withPath = internetItem("example.com", "alice", "five")
        withPath.path = "/admin"
        try store.add(withPath)
        #expect(store.items.count == 4)
    }

    @Test func genericPasswordPrimaryKeyIsAccountAndService() throws {
        var store = LocalStore()
        try store.add(Item(itemClass: .genericPassword, account: "alice", service: "mail", password: secret("a")))
        try store.add(Item(itemClass: .genericPassword, account: "alice", service: "chat", password: secret("b")))
        #expect(throws: KeychainError(.duplicateItem, "")) {
            try store.add(Item(itemClass: .genericPassword, account: "alice", service: "mail", server: "x.example", password: secret("c")))
        }
        let found = try store.copyMatching(ItemQuery(itemClass: .genericPassword, service: "chat"), returnData: true)
        #expect(found.map { $0.password?.text } == ["b"])
    }

    @Test func copyMatchingReturnsOneOrAllAndNotFound() throws {
        var store = LocalStore()
        try store.add(internetItem("example.com", "alice", "a"))
        try store.add(internetItem("example.com", "bob", "b"))
        try store.add(internetItem("other.example", "alice", "c"))
        let all = try store.copyMatching(.internet(server("example.com")))
        #expect(all.map(\.account) == ["alice", "bob"])
        #expect(all.allSatisfy { $0.password == nil })
        let one = try store.copyMatching(ItemQuery(account: "alice"), limit: .one, returnData: true)
        #expect(one.count == 1)
        #expect(one[0].password?.text == "a")
        #expect(throws: KeychainError(.itemNotFound, "")) {
            try store.copyMatching(.internet(server("example.com"), account: "carol"))
        }
    }

    @Test func updateAndDeleteActOnEveryMatch() throws {
        var store = LocalStore()
        try store.add(internetItem("example.com", "alice", "a"))
        try store.add(internetItem("example.com", "bob", "b"))
        try store.add(internetItem("other.example", "carol", "c"))
        let later = Date(timeIntervalSince1970: 5_000)
        #expect(try store.update(.internet(server("example.com")), with: ItemChanges(comment: "work"), now: later) == 2)
        #expect(store.items.filter { $0.comment == "work" }.count == 2)
        #expect(store.items.filter { $0.modificationDate == later }.count == 2)
        #expect(try store.delete(.internet(server("example.com")), now: later) == 2)
        #expect(throws: KeychainError(.itemNotFound, "")) { try store.delete(.internet(server("example.com"))) }
        #expect(throws: KeychainError(.itemNotFound, "")) {
            try store.update(.internet(server("example.com")), with: ItemChanges(comment: "x"))
        }
        #expect(try store.copyMatching(ItemQuery()).map(\.account) == ["carol"])
    }

    @Test func updateOntoAnExistingKeyIsADuplicateAndChangesNothing() throws {
        var store = LocalStore()
        try store.add(internetItem("example.com", "alice", "a"))
        try store.add(internetItem("example.com", "bob", "b"))
        let before = store.items
        #expect(throws: KeychainError(.duplicateItem, "")) {
            try store.update(.internet(server("example.com"), account: "bob"), with: ItemChanges(account: "alice"))
        }
        #expect(store.items == before)
    }

    @Test func updatingManyItemsOntoOneKeyIsADuplicate() throws {
        var store = LocalStore()
        for n in 0..<20 { try store.add(internetItem("example.com", "user\(n)", "p")) }
        let before = store.items
        #expect(throws: KeychainError(.duplicateItem, "")) {
            try store.update(.internet(server("example.com")), with: ItemChanges(account: "same"))
        }
        #expect(store.items == before)
        #expect(try store.update(.internet(server("example.com")), with: ItemChanges(label: "bulk")) == 20)
    }

    @Test func deleteLeavesATombstoneThatQueriesIgnoreAndAddRevives() throws {
        var store = LocalStore()
        try store.add(internetItem("example.com", "alice", "a"))
        let id = store.items[0].id
        let when = Date(timeIntervalSince1970: 7_000)
        try store.delete(.internet(server("example.com"), account: "alice"), now: when)
        #expect(store.items.count == 1)
        #expect(store.items[0].isDeleted)
        #expect(store.items[0].password == nil)
        #expect(store.items[0].modificationDate == when)
        #expect(throws: KeychainError(.itemNotFound, "")) { try store.copyMatching(ItemQuery()) }
        try store.add(internetItem("example.com", "alice", "new"))
        #expect(store.items.count == 1)
        #expect(store.items[0].id == id)
        #expect(!store.items[0].isDeleted)
    }

    @Test func userPresenceReleasesTheSecretOnlyAfterTheCheck() throws {
        var store = LocalStore()
        try store.add(internetItem("example.com", "alice", "a", accessControl: .userPresence))
        // Attributes alone need no check.
        #expect(try store.copyMatching(ItemQuery()).count == 1)
        #expect(throws: KeychainError(.authFailed, "")) {
            try store.copyMatching(ItemQuery(), returnData: true, userPresence: { false })
        }
        var asked = 0
        let found = try store.copyMatching(ItemQuery(), returnData: true, userPresence: { asked += 1; return true })
        #expect(asked == 1)
        #expect(found[0].password?.text == "a")
    }

    @Test func thisDeviceOnlyItemsCannotBeSynchronizable() throws {
        var store = LocalStore()
        #expect(throws: KeychainError(.param, "")) {
            try store.add(internetItem("example.com", "alice", "a", accessible: .whenUnlockedThisDeviceOnly, synchronizable: true))
        }
        try store.add(internetItem("example.com", "alice", "a", accessible: .afterFirstUnlockThisDeviceOnly))
        #expect(throws: KeychainError(.param, "")) {
            try store.update(ItemQuery(), with: ItemChanges(synchronizable: true))
        }
    }

    @Test func emptyAccountIsAParameterError() {
        var store = LocalStore()
        #expect(throws: KeychainError(.param, "")) { try store.add(internetItem("example.com", "", "a")) }
    }

    @Test func statusCodesAndExitCodes() {
        #expect(KeychainStatus.itemNotFound.rawValue == -25300)
        #expect(KeychainStatus.duplicateItem.rawValue == -25299)
        #expect(KeychainStatus.userCanceled.rawValue == -128)
        #expect(KeychainStatus.authFailed.rawValue == -25293)
        #expect(KeychainStatus.param.rawValue == -50)
        #expect(KeychainStatus.decode.rawValue == -26275)
        #expect(KeychainStatus.allCases.map(\.exitCode) == [0, 3, 6, 4, 5, 2, 7])
        #expect(KeychainStatus.itemNotFound.name == "errSecItemNotFound")
        let error = KeychainError(.itemNotFound, "no saved password for \"alice\" on example.com")
        #expect(error.description == "no saved password for \"alice\" on example.com (errSecItemNotFound -25300)")
    }
}
