import Foundation
import KeyshelfCrypto
import KeyshelfVault
import Testing
@testable import KeyshelfCredentials

/// `HostIndex` (the lookup of one server's items) and the reads that go
/// through it: every item a query naming a host can match, in store order,
/// and never an item of a snapshot a write replaced.
@Suite struct HostIndexTests {
    /// Many hosts sharing buckets, several items per host spread over the
    /// store, tombstones and generic passwords among them.
    @Test func positionsAreEveryItemOfTheHostInStoreOrder() {
        var items: [Item] = []
        for i in 0..<600 {
            var item = internetItem("h\(i % 97).example", "user\(i)", "p\(i)")
            if i % 11 == 0 { item.isDeleted = true }
            items.append(item)
            if i % 50 == 0 { items.append(Item(itemClass: .genericPassword, account: "a\(i)", service: "h\(i % 97).example", password: secret("g"))) }
        }
        let index = HostIndex(items)
        for host in (0..<97).map({ "h\($0).example" }) + ["absent.example", ""] {
            #expect(index.positions(of: host, in: items) == items.indices.filter { items[$0].server == host }, "\(host)")
        }
        #expect(HostIndex([]).positions(of: "h1.example", in: []).isEmpty)
    }

    /// `get` after a write reads the new snapshot: an account added, changed
    /// or deleted after the first lookup built the index.
    @Test func getSeesEveryWriteAfterTheIndexWasBuilt() throws {
        let vault = MemoryVault(items: VaultContents(local: (0..<40).map { internetItem("site\($0).example", "u\($0)", "p\($0)") }))
        let shelf = try Keyshelf(vault: vault, consent: ScriptedConsent(otherwise: .approved))
        let pattern = try ServerPattern(parsing: "new.example")
        #expect(try shelf.get(server: ServerPattern(parsing: "site7.example")).password?.text == "p7")
        #expect(throws: KeychainError.self) { try shelf.get(server: pattern) }

        try shelf.add(server: server("new.example"), account: "fresh", password: secret("one"), to: .local)
        #expect(try shelf.get(server: pattern).password?.text == "one")
        _ = try shelf.changePassword(secret("two"), server: pattern, account: "fresh", in: .both, newItems: .local)
        #expect(try shelf.get(server: pattern, account: "fresh").password?.text == "two")
        #expect(shelf.accounts(of: pattern).map(\.account) == ["fresh"])
        try shelf.delete(server: server("new.example"), account: "fresh")
        #expect(throws: KeychainError.self) { try shelf.get(server: pattern) }
        #expect(shelf.accounts(of: pattern).isEmpty)
        #expect(try shelf.get(server: ServerPattern(parsing: "site39.example")).password?.text == "p39")
    }

    /// `extend` adds appended items at the end of their chains, and past one
    /// item per bucket rebuilds the table: the positions stay those of a scan.
    @Test func extendingCoversTheAppendedItems() {
        var items = (0..<300).map { internetItem("h\($0 % 37).example", "user\($0)", "p") }
        var index = HostIndex(items)
        let hosts = (0..<60).map { "h\($0).example" }
        for round in 0..<4 {
            // 300 more each round: new hosts, and hosts the index already has.
            items += (0..<300).map { internetItem("h\(($0 + round * 7) % 60).example", "more\(round)-\($0)", "p") }
            index.extend(to: items)
            #expect(index.count == items.count)
            for host in hosts {
                #expect(index.positions(of: host, in: items) == items.indices.filter { items[$0].server == host }, "round \(round), \(host)")
            }
        }
    }

    /// The indexes a write keeps (`ShelfWriter.mutate(near:)`) give what a
    /// fresh reader of the vault gives, after every kind of change, also when
    /// another process wrote between the snapshot and the write (then the
    /// write scans and the indexes are built again).
    @Test func keptIndexesAnswerAsAFreshReaderAfterEveryWrite() throws {
        let url = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("keyshelf-hostindex-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: url) }
        let session = try VaultDirectory(url: url).create(password: secret("master"), limits: .minimum)
        defer { session.lock() }
        try session.modify { contents in
            for n in 0..<120 {
                let item = internetItem("site\(n % 12).example", "user\(n)", "pw\(n)")
                if n % 3 == 0 { contents.local.append(item) } else { var shared = item; shared.synchronizable = true; contents.shared.append(shared) }
            }
        }
        let shelf = try Keyshelf(vault: session, consent: ScriptedConsent(otherwise: .approved))
        let hosts = (0..<13).map { "site\($0).example" }
        func check(_ step: String) throws {
            let other = try VaultDirectory(url: url).unlock(password: secret("master"))
            defer { other.lock() }
            let fresh = try Keyshelf(vault: other, consent: ScriptedConsent(otherwise: .approved))
            for host in hosts {
                let pattern = try ServerPattern(parsing: host)
                // Twice: the second lookup reads an index even where the first only scanned.
                for _ in 0..<2 {
                    #expect(shelf.accounts(of: pattern).map { "\($0.account)@\($0.store)" } == fresh.accounts(of: pattern).map { "\($0.account)@\($0.store)" },
                            "\(step): \(host)")
                }
            }
        }
        _ = shelf.accounts(of: try ServerPattern(parsing: "site1.example"))
        _ = try shelf.changePassword(secret("new"), server: ServerPattern(parsing: "site1.example"), account: "user1", in: .both, newItems: .shared)
        #expect(!shelf.reader.indexes(near: "").indexes.isEmpty)
        try check("password change")
        try shelf.edit(server: ServerPattern(parsing: "site2.example"), account: "user2", MetadataChanges(label: "L", account: "renamed"))
        try check("rename")
        try shelf.edit(server: ServerPattern(parsing: "site4.example"), account: "user4", MetadataChanges(store: .local))
        try check("move to the local store")
        try shelf.edit(server: ServerPattern(parsing: "site5.example"), account: "user5", MetadataChanges(server: server("site12.example")))
        try check("move to another server")
        try shelf.edit(server: ServerPattern(parsing: "site7.example"), account: "user7", MetadataChanges(account: "user19"))
        try check("rename onto another account")
        _ = try shelf.changePassword(secret("added"), server: ServerPattern(parsing: "site8.example"), account: "newcomer", in: .both, newItems: .local)
        try check("new account")
        try shelf.delete(server: server("site8.example"), account: "newcomer")
        try check("delete")
        _ = try shelf.changePassword(secret("back"), server: ServerPattern(parsing: "site8.example"), account: "newcomer", in: .both, newItems: .local)
        try check("revived")
        // Another process writes between this facade's snapshot and its write.
        let writer = try VaultDirectory(url: url).unlock(password: secret("master"))
        try Keyshelf(vault: writer, consent: ScriptedConsent(otherwise: .approved))
            .edit(server: ServerPattern(parsing: "site3.example"), account: "user15", MetadataChanges(account: "moved-by-another", server: server("site9.example")))
        writer.lock()
        _ = try shelf.changePassword(secret("after"), server: ServerPattern(parsing: "site3.example"), account: "user3", in: .both, newItems: .shared)
        try check("write after another process's write")
        try shelf.edit(server: ServerPattern(parsing: "site9.example"), account: "moved-by-another", MetadataChanges(label: "seen"))
        try check("edit of the other process's item")
    }

    /// Another process saves between the facade's locked write and its
    /// read-back, keeping the item count but moving items (an `rm` and an
    /// `add`): the indexes the write kept must not be used for those items
    /// (hostile review).
    @Test func indexesAreNotKeptWhenAnotherProcessSavedAfterTheWrite() throws {
        let url = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("keyshelf-hostindex-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: url) }
        let session = try VaultDirectory(url: url).create(password: secret("master"), limits: .minimum)
        defer { session.lock() }
        try session.modify { contents in
            contents.local = (0..<6).map { internetItem("site\($0 % 3).example", "user\($0)", "pw\($0)") }
        }
        let vault = WriteAfterLockVault(session)
        let shelf = try Keyshelf(vault: vault, consent: ScriptedConsent(otherwise: .approved))
        _ = shelf.accounts(of: try ServerPattern(parsing: "site1.example"))
        vault.afterNextWrite = {
            // Another process: the first item goes, one of another host takes the last place.
            let other = try VaultDirectory(url: url).unlock(password: secret("master"))
            defer { other.lock() }
            try other.modify { contents in
                contents.local.removeFirst()
                contents.local.append(internetItem("site9.example", "late", "pw"))
            }
        }
        try shelf.edit(server: ServerPattern(parsing: "site1.example"), account: "user1", MetadataChanges(label: "L"))
        for host in ["site0.example", "site1.example", "site2.example", "site9.example"] {
            let pattern = try ServerPattern(parsing: host)
            let fresh = try session.loadItems().local.filter { !$0.isDeleted && $0.server == host }.map(\.account)
            for _ in 0..<2 {
                #expect(shelf.accounts(of: pattern).map(\.account).sorted() == fresh.sorted(), "\(host)")
            }
        }
    }
}

/// A session whose next locked write is followed, before anything is read
/// back, by `afterNextWrite` (another process's save in that gap).
private final class WriteAfterLockVault: CredentialVault {
    let session: VaultSession
    var afterNextWrite: (() throws -> Void)?
    init(_ session: VaultSession) { self.session = session }

    private func then<T>(_ result: T) throws -> T {
        if let run = afterNextWrite {
            afterNextWrite = nil
            try run()
        }
        return result
    }

    func loadItems() throws -> StoredItems { try session.loadItems() }
    func modifyItems<T>(_ body: (inout StoredItems) throws -> T) throws -> T { try then(session.modifyItems(body)) }
    func modifyItems<T>(since revision: Int, _ body: (inout StoredItems, _ unchanged: Bool) throws -> T) throws -> T {
        try then(session.modifyItems(since: revision, body))
    }
    func addItem(to store: Store, _ body: (StoredItems) throws -> Item?) throws -> Bool { try then(session.addItem(to: store, body)) }
    func verifyPassword(_ password: Secret) -> Bool { session.verifyPassword(password) }
    func changeMasterPassword(from current: Secret, to newPassword: Secret) throws {
        try session.changeMasterPassword(from: current, to: newPassword)
    }
    var revision: Int { session.revision }
}
