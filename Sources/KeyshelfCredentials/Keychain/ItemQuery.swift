import Foundation
import KeyshelfCrypto
import KeyshelfVault

/// A Keychain query: a set of attributes an item must all have (DESIGN §2,
/// the dictionary passed to `SecItemCopyMatching` / `SecItemUpdate` /
/// `SecItemDelete`). A nil attribute matches anything; tombstones never match.
public struct ItemQuery: Sendable, Equatable {
    /// `kSecClass`.
    public var itemClass: ItemClass?
    /// `kSecAttrAccount`.
    public var account: String?
    /// `kSecAttrService` (generic passwords).
    public var service: String?
    /// `kSecAttrServer`: the normalised A-label host (see `ServerName.host`).
    public var server: String?
    /// `kSecAttrProtocol`, e.g. "https".
    public var `protocol`: String?
    /// `kSecAttrPort`; 0 is the protocol's default.
    public var port: Int?
    /// The port actually used: the item's port, or its protocol's default
    /// when that is 0 (a scheme-less `host:port` lookup, `ServerPattern`).
    public var effectivePort: Int?
    /// `kSecAttrPath`.
    public var path: String?
    /// `kSecAttrSecurityDomain`.
    public var securityDomain: String?
    /// `kSecAttrAuthenticationType`.
    public var authenticationType: String?
    /// `kSecAttrLabel`.
    public var label: String?
    /// `kSecAttrAccessible`.
    public var accessible: Accessible?
    /// `kSecAttrSynchronizable`.
    public var synchronizable: Bool?
    /// The item's stable id (not a Keychain attribute; lets the TUI address one row).
    public var id: UUID?

    public init(
        itemClass: ItemClass? = nil, account: String? = nil, service: String? = nil,
        server: String? = nil, protocol: String? = nil, port: Int? = nil, path: String? = nil,
        securityDomain: String? = nil, authenticationType: String? = nil, label: String? = nil,
        accessible: Accessible? = nil, synchronizable: Bool? = nil, id: UUID? = nil
    ) {
        self.itemClass = itemClass
        self.account = account
        self.service = service
        self.server = server
        self.protocol = `protocol`
        self.port = port
        self.path = path
        self.securityDomain = securityDomain
        self.authenticationType = authenticationType
        self.label = label
        self.accessible = accessible
        self.synchronizable = synchronizable
        self.id = id
    }

    /// Internet passwords of `server` (host, port and protocol), optionally of one `account`.
    public static func internet(_ server: ServerName, account: String? = nil) -> ItemQuery {
        ItemQuery(itemClass: .internetPassword, account: account, server: server.host,
                  protocol: server.scheme, port: server.port)
    }

    /// The item with this id.
    public static func item(_ id: UUID) -> ItemQuery { ItemQuery(id: id) }

    /// True when `item` is live and has every attribute this query sets.
    public func matches(_ item: Item) -> Bool {
        withUnsafePointer(to: item) { matches($0) }
    }

    /// `matches` for an item read in place (a store scan), so that only the
    /// compared fields are loaded, not a copy of the whole item.
    public func matches(_ pointer: UnsafePointer<Item>) -> Bool {
        if pointer.pointee.isDeleted { return false }
        if let id, pointer.pointee.id != id { return false }
        if let itemClass, pointer.pointee.itemClass != itemClass { return false }
        // The server first: most items of a store differ in it, and a host of up to 15 bytes
        // is compared inside the item, while a longer string (most accounts) is read from the heap.
        if let server, pointer.pointee.server != server { return false }
        if let account, pointer.pointee.account != account { return false }
        if let port, pointer.pointee.port != port {
            // An item stored with its scheme's default port spelled out (443) is the same server as port 0.
            guard port == 0, pointer.pointee.port == ServerName.defaultPort(scheme: pointer.pointee.protocol) else { return false }
        }
        if let effectivePort {
            let port = pointer.pointee.port
            guard (port != 0 ? port : ServerName.defaultPort(scheme: pointer.pointee.protocol)) == effectivePort else { return false }
        }
        if let `protocol`, pointer.pointee.protocol != `protocol` { return false }
        if let service, pointer.pointee.service != service { return false }
        if let path, pointer.pointee.path != path { return false }
        if let securityDomain, pointer.pointee.securityDomain != securityDomain { return false }
        if let authenticationType, pointer.pointee.authenticationType != authenticationType { return false }
        if let label, pointer.pointee.label != label { return false }
        if let accessible, pointer.pointee.accessible != accessible { return false }
        if let synchronizable, pointer.pointee.synchronizable != synchronizable { return false }
        return true
    }
}

/// How many matches `copyMatching` returns (`kSecMatchLimit`).
public enum MatchLimit: Sendable {
    /// `kSecMatchLimitOne`: the first match.
    case one
    /// `kSecMatchLimitAll`: every match.
    case all
}

/// The attributes `LocalStore.update` sets (`SecItemUpdate`'s
/// attributes-to-update dictionary). A nil field is left unchanged.
public struct ItemChanges: Sendable {
    public var account: String?
    public var service: String?
    public var server: String?
    public var `protocol`: String?
    public var port: Int?
    public var path: String?
    public var securityDomain: String?
    public var authenticationType: String?
    public var label: String?
    public var comment: String?
    public var accessible: Accessible?
    public var accessControl: AccessControl?
    public var synchronizable: Bool?
    /// `kSecValueData`: the new password.
    public var password: Secret?
    /// The audit findings to ignore (docs/audit.md).
    public var ignoredFindings: AuditProblems?

    public init(
        account: String? = nil, service: String? = nil, server: String? = nil,
        protocol: String? = nil, port: Int? = nil, path: String? = nil,
        securityDomain: String? = nil, authenticationType: String? = nil,
        label: String? = nil, comment: String? = nil, accessible: Accessible? = nil,
        accessControl: AccessControl? = nil, synchronizable: Bool? = nil, password: Secret? = nil,
        ignoredFindings: AuditProblems? = nil
    ) {
        self.ignoredFindings = ignoredFindings
        self.account = account
        self.service = service
        self.server = server
        self.protocol = `protocol`
        self.port = port
        self.path = path
        self.securityDomain = securityDomain
        self.authenticationType = authenticationType
        self.label = label
        self.comment = comment
        self.accessible = accessible
        self.accessControl = accessControl
        self.synchronizable = synchronizable
        self.password = password
    }

    func apply(to item: inout Item) {
        if let account { item.account = account }
        if let service { item.service = service }
        if let server { item.server = server }
        if let `protocol` { item.protocol = `protocol` }
        if let port { item.port = port }
        if let path { item.path = path }
        if let securityDomain { item.securityDomain = securityDomain }
        if let authenticationType { item.authenticationType = authenticationType }
        if let label { item.label = label }
        if let comment { item.comment = comment }
        if let accessible { item.accessible = accessible }
        if let accessControl { item.accessControl = accessControl }
        if let synchronizable { item.synchronizable = synchronizable }
        if let password { item.replacePassword(with: password, at: Date()) }
        if let ignoredFindings { item.ignoredFindings = ignoredFindings }
    }
}

/// The primary key of an item (DESIGN §2): `account` + `service` for generic
/// passwords; `account`, `server`, `protocol`, `port`, `path`,
/// `securityDomain`, `authenticationType` for internet passwords.
public struct PrimaryKey: Hashable, Sendable {
    public var itemClass: ItemClass
    public var account: String
    public var service: String
    public var server: String
    public var `protocol`: String
    public var port: Int
    public var path: String
    public var securityDomain: String
    public var authenticationType: String
}

extension Item {
    /// This item's Keychain primary key.
    public var primaryKey: PrimaryKey {
        switch itemClass {
        case .genericPassword:
            PrimaryKey(itemClass: itemClass, account: account, service: service, server: "",
                       protocol: "", port: 0, path: "", securityDomain: "", authenticationType: "")
        case .internetPassword:
            PrimaryKey(itemClass: itemClass, account: account, service: "", server: server,
                       protocol: `protocol`, port: port, path: path, securityDomain: securityDomain,
                       authenticationType: authenticationType)
        }
    }

    /// Whether `other` has this item's primary key, compared field by field
    /// (cheaper than building two `PrimaryKey`s when scanning a store).
    public func hasPrimaryKey(of other: Item) -> Bool {
        withUnsafePointer(to: other) { hasPrimaryKey(of: $0) }
    }

    /// `hasPrimaryKey(of:)` for an item read in place (a store scan).
    public func hasPrimaryKey(of pointer: UnsafePointer<Item>) -> Bool {
        guard itemClass == pointer.pointee.itemClass, account == pointer.pointee.account else { return false }
        switch itemClass {
        case .genericPassword:
            return service == pointer.pointee.service
        case .internetPassword:
            return server == pointer.pointee.server && port == pointer.pointee.port && `protocol` == pointer.pointee.protocol
                && path == pointer.pointee.path && securityDomain == pointer.pointee.securityDomain
                && authenticationType == pointer.pointee.authenticationType
        }
    }

    /// The server of an internet password (nil for generic passwords).
    public var serverName: ServerName? {
        itemClass == .internetPassword ? ServerName(host: server, port: port, scheme: `protocol`) : nil
    }

    /// Turns the item into a tombstone at `date`: password, OAuth refresh
    /// token and expiry, notes and label are dropped, the primary key and id
    /// stay so synced copies merge (DESIGN §6).
    mutating func markDeleted(at date: Date) {
        isDeleted = true
        password = nil
        oauthRefreshToken = nil
        passwordExpiryUTC = nil
        comment = ""
        label = ""
        otpauth = ""
        ignoredFindings = []
        passwordHistory = []
        signInWithApple = nil
        appleTeamID = ""
        modificationDate = date
    }
}
