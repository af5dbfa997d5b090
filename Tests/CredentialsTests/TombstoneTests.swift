import Foundation
import KeyshelfCrypto
import KeyshelfVault
import Testing
@testable import KeyshelfCredentials

/// What a deleted item leaves behind (DESIGN §6, issue 20 item 3): only its
/// id, its primary key and the deletion stamp. The password, the label, the
/// notes, the `otpauth://` seed and git's OAuth refresh token and expiry go,
/// in memory and in the file that syncs.
@Suite struct TombstoneTests {
    static let site = server("example.com")

    /// An item carrying every user-written field a tombstone must drop.
    static func fullItem(_ account: String, store: Store) -> Item {
        Item(itemClass: .internetPassword, account: account, server: site.host,
             label: "Work login", comment: "recovery codes: 1234 5678",
             otpauth: "otpauth://totp/example.com:\(account)?secret=JBSWY3DPEHPK3PXP&issuer=example.com",
             creationDate: Date(timeIntervalSince1970: 1_000),
             synchronizable: store == .shared, password: secret("s3cret"),
             passwordExpiryUTC: 1_900_000_000, oauthRefreshToken: secret("refresh-\(account)"),
             ignoredFindings: [.weak],
             appleTeamID: "TEAM123456",
             passwordHistory: [PasswordHistoryEntry(password: secret("older-\(account)"), replaced: Date(timeIntervalSince1970: 1_500))])
    }

    /// Fails unless `tombstone` is `original` deleted: same id and primary
    /// key, no password, label, notes or one-time seed, stamped `stamp`
    /// (or later than the original when nil).
    static func expectTombstone(_ tombstone: Item?, of original: Item, at stamp: Date? = nil,
                                sourceLocation: SourceLocation = #_sourceLocation) {
        guard let tombstone else {
            Issue.record("no tombstone for \(original.account)", sourceLocation: sourceLocation)
            return
        }
        #expect(tombstone.isDeleted, sourceLocation: sourceLocation)
        #expect(tombstone.id == original.id, sourceLocation: sourceLocation)
        #expect(tombstone.hasPrimaryKey(of: original), sourceLocation: sourceLocation)
        #expect(tombstone.password == nil, "password kept", sourceLocation: sourceLocation)
        #expect(tombstone.label.isEmpty, "label kept: \(tombstone.label)", sourceLocation: sourceLocation)
        #expect(tombstone.comment.isEmpty, "notes kept: \(tombstone.comment)", sourceLocation: sourceLocation)
        #expect(tombstone.otpauth.isEmpty, "one-time seed kept: \(tombstone.otpauth)", sourceLocation: sourceLocation)
        #expect(tombstone.oauthRefreshToken == nil, "OAuth refresh token kept", sourceLocation: sourceLocation)
        #expect(tombstone.passwordExpiryUTC == nil, "password expiry kept", sourceLocation: sourceLocation)
        #expect(tombstone.ignoredFindings.isEmpty, "ignored audit findings kept", sourceLocation: sourceLocation)
        #expect(tombstone.signInWithApple == nil, "Sign in with Apple details kept (forwarding address)", sourceLocation: sourceLocation)
        #expect(tombstone.appleTeamID.isEmpty, "Apple team ID kept", sourceLocation: sourceLocation)
        #expect(tombstone.passwordHistory.isEmpty, "password history kept", sourceLocation: sourceLocation)
        if let stamp {
            #expect(tombstone.modificationDate == stamp, sourceLocation: sourceLocation)
        } else {
            #expect(tombstone.modificationDate > original.modificationDate, sourceLocation: sourceLocation)
        }
    }

    /// A real vault (minimum KDF) holding `fullItem("alice")` in both stores.
    final class Vault {
        let url = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("keyshelf-tombstone-\(UUID().uuidString)")
        let local = fullItem("alice", store: .local)
        let shared = fullItem("alice", store: .shared)

        init() throws {
            let session = try VaultDirectory(url: url).create(password: secret("master"), limits: .minimum)
            defer { session.lock() }
            try session.modify { [local, shared] in
                $0.local = [local]
                $0.shared = [shared]
            }
        }

        deinit { try? FileManager.default.removeItem(at: url) }

        func open() throws -> VaultSession { try VaultDirectory(url: url).unlock(password: secret("master")) }

        /// Both stores' tombstones read back from the files.
        func reopened() throws -> (local: Item?, shared: Item?) {
            let session = try open()
            defer { session.lock() }
            let contents = try session.contents()
            return (contents.local.first { $0.id == local.id }, contents.shared.first { $0.id == shared.id })
        }
    }

    /// The fixture's OAuth fields are written (tags 21, 22) and read back, so
    /// the tombstone checks below test a token that really was in the file.
    @Test func oauthFieldsSurviveSaveAndReopen() throws {
        let vault = try Vault()
        let (local, shared) = try vault.reopened()
        #expect(local == vault.local && shared == vault.shared)
        #expect(local?.oauthRefreshToken == secret("refresh-alice") && local?.passwordExpiryUTC == 1_900_000_000)
    }

    /// The git helper's `erase` tombstones both stores' copies.
    @Test func facadeEraseSurvivesSaveAndReopen() throws {
        let vault = try Vault()
        let session = try vault.open()
        #expect(try Keyshelf(vault: session, consent: ApproveAll()).erase(server: Self.site, account: "alice", password: nil).deleted == ["alice"])
        session.lock()
        let (local, shared) = try vault.reopened()
        Self.expectTombstone(local, of: vault.local)
        Self.expectTombstone(shared, of: vault.shared)
    }

    @Test func localStoreDelete() throws {
        var store = LocalStore(items: [Self.fullItem("alice", store: .local)])
        let original = store.items[0]
        let when = Date(timeIntervalSince1970: 9_000)
        #expect(try store.delete(.internet(Self.site, account: "alice"), now: when) == 1)
        Self.expectTombstone(store.items[0], of: original, at: when)
    }

    /// A Sign in with Apple account's tombstone drops the real address its relay forwards to.
    @Test func appleAccountDelete() throws {
        var apple = Self.fullItem("alice@privaterelay.appleid.com", store: .local)
        apple.password = nil
        apple.signInWithApple = AppleSignIn(hidesEmail: true, forwardingAddress: "real.alice@example.org",
                                            since: Date(timeIntervalSince1970: 2_000))
        var store = LocalStore(items: [apple])
        let when = Date(timeIntervalSince1970: 9_000)
        #expect(try store.delete(.internet(Self.site, account: apple.account), now: when) == 1)
        Self.expectTombstone(store.items[0], of: apple, at: when)
    }

    @Test func sharedAddWithANilPassword() throws {
        var shared = SharedWebCredentials(items: [Self.fullItem("alice", store: .shared)])
        let original = shared.items[0]
        let when = Date(timeIntervalSince1970: 9_000)
        #expect(try shared.add(server: Self.site, account: "alice", password: nil, consent: ApproveAll(), now: when) == .deleted)
        Self.expectTombstone(shared.items[0], of: original, at: when)
    }

    /// The same account added on two machines: the merge tombstones the older copy.
    @Test func mergeOfTwoCopiesOfOneAccount() throws {
        let older = Self.fullItem("alice", store: .shared)
        var newer = Self.fullItem("alice", store: .shared)
        newer.modificationDate = Date(timeIntervalSince1970: 5_000)
        let merged = ItemMerge.merge(ours: [older], theirs: [newer])
        Self.expectTombstone(merged.first { $0.id == older.id }, of: older, at: newer.modificationDate)
    }

    @Test func facadeDeleteOfBothStoresSurvivesSaveAndReopen() throws {
        let vault = try Vault()
        let session = try vault.open()
        #expect(try Keyshelf(vault: session, consent: ApproveAll()).delete(server: Self.site, account: "alice") == [.local, .shared])
        session.lock()
        let (local, shared) = try vault.reopened()
        Self.expectTombstone(local, of: vault.local)
        Self.expectTombstone(shared, of: vault.shared)
    }

    @Test(arguments: Store.allCases)
    func facadeDeleteOfAnEntrySurvivesSaveAndReopen(store: Store) throws {
        let vault = try Vault()
        let session = try vault.open()
        let keyshelf = try Keyshelf(vault: session, consent: ApproveAll())
        let entry = try #require(keyshelf.accounts(of: Self.site).first { $0.store == store })
        try keyshelf.delete(entry)
        session.lock()
        let reopened = try vault.reopened()
        Self.expectTombstone(store == .local ? reopened.local : reopened.shared, of: store == .local ? vault.local : vault.shared)
    }
}
