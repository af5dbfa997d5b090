import Foundation

/// The attributes of `Item`, declared once: each one's stored property, wire
/// tags (docs/vault-format.md, "Payload records") and roles.
///
/// `RecordCodec` writes and reads the tags listed here; `ItemQuery`,
/// `ItemChanges` and `PrimaryKey` (KeyshelfCredentials) carry the attributes
/// whose roles say so. The codec and those types stay hand-written for speed
/// (items are read in place through pointers); `AttributeTableTests` checks
/// every one of them, and that every stored property of `Item` has an entry
/// here. Adding an attribute: docs/vault-format.md, "Adding an attribute".
public enum ItemAttribute: String, CaseIterable, Sendable {
    case id, itemClass, account, service, server, `protocol`, port, path
    case securityDomain, authenticationType, label, comment, otpauth
    case creationDate, modificationDate, accessible, accessControl
    case synchronizable, password, isDeleted
    case passwordExpiryUTC, oauthRefreshToken, ignoredFindings
    case changeStamp, passwordHistory, signInWithApple, appleTeamID

    /// What the rest of the code does with an attribute.
    public struct Roles: OptionSet, Sendable {
        public let rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }
        /// Part of a generic password's primary key (DESIGN §2).
        public static let genericKey = Roles(rawValue: 1 << 0)
        /// Part of an internet password's primary key (DESIGN §2).
        public static let internetKey = Roles(rawValue: 1 << 1)
        /// An `ItemQuery` field (`SecItemCopyMatching`).
        public static let queryable = Roles(rawValue: 1 << 2)
        /// An `ItemChanges` field (`SecItemUpdate`).
        public static let changeable = Roles(rawValue: 1 << 3)
        /// Part of both primary keys.
        public static let key: Roles = [.genericKey, .internetKey]
    }

    /// The name of the stored property of `Item` that holds the attribute
    /// (its `Mirror` label).
    public var storedProperty: String {
        self == .changeStamp ? "stampSlot" : rawValue
    }

    /// The wire tags of the attribute in a payload record; Sign in with Apple
    /// takes three (flags, forwarding address, date).
    public var wireTags: [UInt8] {
        switch self {
        case .signInWithApple:
            [RecordCodec.Tag.signInWithApple, .appleForwardingAddress, .appleSignInDate].map(\.rawValue)
        default:
            [RecordCodec.Tag(name: rawValue)!.rawValue]
        }
    }

    /// The attribute's roles.
    public var roles: Roles {
        switch self {
        case .itemClass: [.key, .queryable]
        case .account: [.key, .queryable, .changeable]
        case .service: [.genericKey, .queryable, .changeable]
        case .server, .protocol, .port, .path, .securityDomain, .authenticationType:
            [.internetKey, .queryable, .changeable]
        case .label, .accessible, .synchronizable: [.queryable, .changeable]
        case .id: [.queryable]
        case .comment, .accessControl, .password, .ignoredFindings: [.changeable]
        case .otpauth, .creationDate, .modificationDate, .isDeleted, .passwordExpiryUTC,
             .oauthRefreshToken, .changeStamp, .passwordHistory, .signInWithApple, .appleTeamID: []
        }
    }
}

extension RecordCodec.Tag {
    /// The tag whose case is named `name` (an `ItemAttribute`'s raw value).
    init?(name: String) {
        guard let tag = (1...UInt8.max).lazy.compactMap(Self.init(rawValue:)).first(where: { "\($0)" == name }) else { return nil }
        self = tag
    }
}
