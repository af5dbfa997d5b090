import Foundation
import Testing
import KeyshelfCrypto
import KeyshelfVault
@testable import KeyshelfCredentials

/// Issue 15 item 4: a read never copies a store's item array, and an append
/// or an edit through the facade extends or edits it in place. Checked by
/// the array's storage address, not by time: a copy-on-write copy (a read
/// that duplicated the array, a snapshot held during a write) moves the
/// items to a new buffer.
@Suite struct ItemStorageSharingTests {
    /// The address of `items`' buffer: the same address, the same storage.
    private static func storage(_ items: [Item]) -> UInt? {
        items.withUnsafeBufferPointer { $0.baseAddress.map { UInt(bitPattern: $0) } }
    }

    /// A real vault (minimum KDF) whose shared store holds `count` credentials.
    private final class Vault {
        let url = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("keyshelf-storage-\(UUID().uuidString)")
        let session: VaultSession

        init(count: Int) throws {
            session = try VaultDirectory(url: url).create(password: secret("master"), limits: .minimum)
            try session.modify { contents in
                for n in 0..<count {
                    contents.shared.append(Item(account: "user\(n)", server: "site\(n).example", synchronizable: true, password: secret("pw\(n)")))
                }
            }
        }

        deinit {
            session.lock()
            try? FileManager.default.removeItem(at: url)
        }
    }

    @Test func readsShareTheSessionsArrays() throws {
        let vault = try Vault(count: 40)
        let first = try #require(Self.storage(vault.session.contents().shared))
        #expect(Self.storage(try vault.session.contents().shared) == first, "a second read copied the array")

        let keyshelf = try Keyshelf(vault: vault.session, consent: ApproveAll())
        #expect(Self.storage(keyshelf.items.shared) == first, "the facade's snapshot is a copy")
        // Listing, search and lookups read the snapshot; none may copy it.
        #expect(keyshelf.entries().count == 40)
        #expect(keyshelf.search("user3").count == 11)
        #expect(try keyshelf.get(server: server("site7.example")).account == "user7")
        #expect(try keyshelf.refresh() == false)
        #expect(Self.storage(keyshelf.items.shared) == first, "a read through the facade copied the array")
        #expect(Self.storage(try vault.session.contents().shared) == first)
    }

    @Test func appendsExtendTheArrayInPlace() throws {
        let vault = try Vault(count: 40)
        let keyshelf = try Keyshelf(vault: vault.session, consent: ApproveAll())
        // The first append may move the items to a larger buffer; after it there is room.
        try keyshelf.add(server: server("new.example"), account: "first", password: secret("a"), to: .shared)
        let grown = keyshelf.items.shared
        try #require(grown.capacity > grown.count, "no room after the first append: the check below would test growth, not copies")
        let before = try #require(Self.storage(grown))
        _ = consume grown

        try keyshelf.add(server: server("new.example"), account: "second", password: secret("b"), to: .shared)
        #expect(keyshelf.items.shared.count == 42)
        #expect(Self.storage(keyshelf.items.shared) == before, "the append copied the array (a reference to it was held during the write)")
        #expect(Self.storage(try vault.session.contents().shared) == before)
    }

    @Test func anEditThroughTheFacadeKeepsTheArray() throws {
        let vault = try Vault(count: 40)
        let keyshelf = try Keyshelf(vault: vault.session, consent: ApproveAll())
        let before = try #require(Self.storage(keyshelf.items.shared))

        // A delete leaves a tombstone in place; adding the account again revives it.
        #expect(try keyshelf.delete(server: server("site5.example"), account: "user5") == [.shared])
        #expect(Self.storage(keyshelf.items.shared) == before, "the delete copied the array")
        try keyshelf.add(server: server("site5.example"), account: "user5", password: secret("again"), to: .shared)
        #expect(keyshelf.items.shared.count == 40)
        #expect(Self.storage(keyshelf.items.shared) == before, "reviving a tombstone copied the array")
        #expect(Self.storage(try vault.session.contents().shared) == before)
    }
}
