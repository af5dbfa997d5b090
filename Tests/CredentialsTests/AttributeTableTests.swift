import Foundation
import Testing
import KeyshelfCrypto
@testable import KeyshelfVault
@testable import KeyshelfCredentials

/// Checks `ItemAttribute` against `Item`, `RecordCodec`, `ItemQuery`,
/// `ItemChanges` and `PrimaryKey`: an attribute missing from any of them,
/// or a stored property of `Item` missing from the table, fails here.
@Suite struct AttributeTableTests {
    static let modified = Date(timeIntervalSinceReferenceDate: 800_000_000.5)

    /// An item whose every attribute differs from `Item`'s defaults.
    static var filled: Item {
        Item(
            id: UUID(uuidString: "00112233-4455-6677-8899-AABBCCDDEEFF")!, itemClass: .genericPassword,
            account: "me@example.com", service: "svc", server: "example.com", protocol: "http", port: 8443,
            path: "/p", securityDomain: "realm", authenticationType: "httpBasic", label: "Label", comment: "Notes",
            otpauth: "otpauth://totp/x?secret=ABCD", creationDate: Date(timeIntervalSinceReferenceDate: 700_000_000.25),
            modificationDate: modified, accessible: .afterFirstUnlock, accessControl: .userPresence,
            synchronizable: true, password: Secret(utf8: "pw"), passwordExpiryUTC: 1_900_000_000,
            oauthRefreshToken: Secret(utf8: "token"), isDeleted: true, ignoredFindings: [.weak, .reused],
            signInWithApple: AppleSignIn(hidesEmail: true, forwardingAddress: "me@icloud.example",
                                         since: Date(timeIntervalSinceReferenceDate: 600_000_000)),
            appleTeamID: "TEAM123", changeStamp: ChangeStamp(wallMilliseconds: 1_800_000_000_000, counter: 3, node: 7, issuedFor: modified),
            passwordHistory: [PasswordHistoryEntry(password: Secret(utf8: "old"), replaced: Date(timeIntervalSinceReferenceDate: 750_000_000))])
    }

    /// `filled`, not a tombstone (queries never match one).
    static var live: Item {
        var item = filled
        item.isDeleted = false
        return item
    }

    @Test func everyStoredPropertyOfItemHasATableEntry() {
        let stored = Set(Mirror(reflecting: Self.filled).children.compactMap(\.label))
        // `recordOrigin` is bookkeeping of the vault session, not an attribute: never on the wire.
        #expect(stored == Set(ItemAttribute.allCases.map(\.storedProperty) + ["recordOrigin"]))
    }

    /// A save writes again only the items whose origin was cleared
    /// (`VaultSession.modify`): an attribute whose change kept it would be lost.
    @Test func changingAnyAttributeForgetsTheRecordTheItemCameFrom() {
        var items = [Self.filled]
        _ = RecordCodec.encode(&items, generation: 7)
        #expect(items[0].recordOrigin.isRecord(0, of: 7))
        for attribute in ItemAttribute.allCases {
            var item = items[0]
            change(attribute, &item)
            #expect(!item.recordOrigin.isRecord(0, of: 7), "\(attribute)")
        }
        var item = items[0]
        item.passwordHistory.append(PasswordHistoryEntry(password: Secret(utf8: "older"), replaced: Self.modified))
        #expect(!item.recordOrigin.isRecord(0, of: 7), "a change in place")
    }

    @Test func theFilledItemSetsEveryAttribute() {
        let defaults = Item(account: "", password: nil)
        for attribute in ItemAttribute.allCases {
            #expect(!same(Self.filled[keyPath: keyPath(attribute)], defaults[keyPath: keyPath(attribute)]), "\(attribute)")
        }
    }

    @Test func everyWireTagBelongsToOneAttribute() {
        let tags = ItemAttribute.allCases.flatMap(\.wireTags)
        #expect(Set(tags).count == tags.count)
        #expect(Set(tags) == Set((1...UInt8.max).filter { RecordCodec.Tag(rawValue: $0) != nil }))
    }

    @Test func everyAttributeRoundTripsThroughTheCodec() throws {
        var items = [Self.filled, Self.live]
        let decoded = try RecordCodec.decode(RecordCodec.encode(&items))
        #expect(decoded == [Self.filled, Self.live])
        for attribute in ItemAttribute.allCases {
            #expect(same(decoded[0][keyPath: keyPath(attribute)], Self.filled[keyPath: keyPath(attribute)]), "\(attribute)")
        }
    }

    @Test func queriesCoverTheQueryableAttributes() {
        let queryable = ItemAttribute.allCases.filter { $0.roles.contains(.queryable) }
        let fields = Set(Mirror(reflecting: ItemQuery()).children.compactMap(\.label))
        #expect(fields == Set(queryable.map(\.rawValue) + ["effectivePort"]))
        var all = ItemQuery()
        for attribute in queryable {
            var query = ItemQuery()
            setQuery(attribute, from: Self.live, into: &query)
            setQuery(attribute, from: Self.live, into: &all)
            var other = Self.live
            change(attribute, &other)
            #expect(query.matches(Self.live), "\(attribute)")
            #expect(!query.matches(other), "\(attribute)")
        }
        for attribute in ItemAttribute.allCases where !attribute.roles.contains(.queryable) && attribute != .isDeleted {
            var other = Self.live
            change(attribute, &other)
            #expect(all.matches(other), "\(attribute) is not queryable")
        }
    }

    @Test func changesCoverTheChangeableAttributes() {
        let changeable = ItemAttribute.allCases.filter { $0.roles.contains(.changeable) }
        let fields = Set(Mirror(reflecting: ItemChanges()).children.compactMap(\.label))
        #expect(fields == Set(changeable.map(\.rawValue)))
        for attribute in changeable {
            var target = Self.live
            change(attribute, &target)
            var changes = ItemChanges()
            setChange(attribute, from: target, into: &changes)
            var item = Self.live
            changes.apply(to: &item)
            #expect(same(item[keyPath: keyPath(attribute)], target[keyPath: keyPath(attribute)]), "\(attribute)")
        }
    }

    @Test(arguments: [ItemClass.genericPassword, .internetPassword])
    func primaryKeysCoverTheKeyAttributes(itemClass: ItemClass) {
        let role: ItemAttribute.Roles = itemClass == .genericPassword ? .genericKey : .internetKey
        let fields = Set(Mirror(reflecting: Self.live.primaryKey).children.compactMap(\.label))
        #expect(fields == Set(ItemAttribute.allCases.filter { !$0.roles.isDisjoint(with: .key) }.map(\.rawValue)))
        var base = Self.live
        base.itemClass = itemClass
        for attribute in ItemAttribute.allCases {
            var other = base
            change(attribute, &other)
            let inKey = attribute.roles.contains(role)
            #expect(base.hasPrimaryKey(of: other) == !inKey, "\(attribute)")
            #expect((base.primaryKey == other.primaryKey) == !inKey, "\(attribute)")
        }
    }
}

/// Where `Item` holds `attribute`.
private func keyPath(_ attribute: ItemAttribute) -> PartialKeyPath<Item> {
    switch attribute {
    case .id: \Item.id
    case .itemClass: \Item.itemClass
    case .account: \Item.account
    case .service: \Item.service
    case .server: \Item.server
    case .protocol: \Item.protocol
    case .port: \Item.port
    case .path: \Item.path
    case .securityDomain: \Item.securityDomain
    case .authenticationType: \Item.authenticationType
    case .label: \Item.label
    case .comment: \Item.comment
    case .otpauth: \Item.otpauth
    case .creationDate: \Item.creationDate
    case .modificationDate: \Item.modificationDate
    case .accessible: \Item.accessible
    case .accessControl: \Item.accessControl
    case .synchronizable: \Item.synchronizable
    case .password: \Item.password
    case .isDeleted: \Item.isDeleted
    case .passwordExpiryUTC: \Item.passwordExpiryUTC
    case .oauthRefreshToken: \Item.oauthRefreshToken
    case .ignoredFindings: \Item.ignoredFindings
    case .changeStamp: \Item.changeStamp
    case .passwordHistory: \Item.passwordHistory
    case .signInWithApple: \Item.signInWithApple
    case .appleTeamID: \Item.appleTeamID
    }
}

/// Gives `attribute` of `item` another value than `AttributeTableTests.filled` has.
private func change(_ attribute: ItemAttribute, _ item: inout Item) {
    switch attribute {
    case .id: item.id = UUID()
    case .itemClass: item.itemClass = item.itemClass == .genericPassword ? .internetPassword : .genericPassword
    case .account: item.account = "other"
    case .service: item.service = "other"
    case .server: item.server = "other.example"
    case .protocol: item.protocol = "ftp"
    case .port: item.port = 9000
    case .path: item.path = "/other"
    case .securityDomain: item.securityDomain = "other"
    case .authenticationType: item.authenticationType = "other"
    case .label: item.label = "other"
    case .comment: item.comment = "other"
    case .otpauth: item.otpauth = "otpauth://totp/y?secret=EFGH"
    case .creationDate: item.creationDate = Date(timeIntervalSinceReferenceDate: 1)
    case .modificationDate: item.modificationDate = Date(timeIntervalSinceReferenceDate: 2)
    case .accessible: item.accessible = .whenUnlockedThisDeviceOnly
    case .accessControl: item.accessControl = .none
    case .synchronizable: item.synchronizable = false
    case .password: item.password = Secret(utf8: "other")
    case .isDeleted: item.isDeleted.toggle()
    case .passwordExpiryUTC: item.passwordExpiryUTC = 5
    case .oauthRefreshToken: item.oauthRefreshToken = Secret(utf8: "other")
    case .ignoredFindings: item.ignoredFindings = [.insecure]
    case .changeStamp: item.changeStamp = ChangeStamp(wallMilliseconds: 5, counter: 0, node: 9, issuedFor: item.modificationDate)
    case .passwordHistory: item.passwordHistory = []
    case .signInWithApple: item.signInWithApple = nil
    case .appleTeamID: item.appleTeamID = "OTHER"
    }
}

/// Sets the query field of `attribute` to `item`'s value.
private func setQuery(_ attribute: ItemAttribute, from item: Item, into query: inout ItemQuery) {
    switch attribute {
    case .id: query.id = item.id
    case .itemClass: query.itemClass = item.itemClass
    case .account: query.account = item.account
    case .service: query.service = item.service
    case .server: query.server = item.server
    case .protocol: query.protocol = item.protocol
    case .port: query.port = item.port
    case .path: query.path = item.path
    case .securityDomain: query.securityDomain = item.securityDomain
    case .authenticationType: query.authenticationType = item.authenticationType
    case .label: query.label = item.label
    case .accessible: query.accessible = item.accessible
    case .synchronizable: query.synchronizable = item.synchronizable
    default: Issue.record("\(attribute) has no query field")
    }
}

/// Sets the change of `attribute` to `item`'s value.
private func setChange(_ attribute: ItemAttribute, from item: Item, into changes: inout ItemChanges) {
    switch attribute {
    case .account: changes.account = item.account
    case .service: changes.service = item.service
    case .server: changes.server = item.server
    case .protocol: changes.protocol = item.protocol
    case .port: changes.port = item.port
    case .path: changes.path = item.path
    case .securityDomain: changes.securityDomain = item.securityDomain
    case .authenticationType: changes.authenticationType = item.authenticationType
    case .label: changes.label = item.label
    case .comment: changes.comment = item.comment
    case .accessible: changes.accessible = item.accessible
    case .accessControl: changes.accessControl = item.accessControl
    case .synchronizable: changes.synchronizable = item.synchronizable
    case .password: changes.password = item.password
    case .ignoredFindings: changes.ignoredFindings = item.ignoredFindings
    default: Issue.record("\(attribute) has no change field")
    }
}

/// `a == b` for two values of one `Equatable` type.
private func same(_ a: Any, _ b: Any) -> Bool {
    guard let a = a as? any Equatable else { return false }
    return a.isSame(as: b)
}

private extension Equatable {
    func isSame(as other: Any) -> Bool { (other as? Self) == self }
}
