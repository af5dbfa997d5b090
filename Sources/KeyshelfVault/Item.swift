import Foundation
import KeyshelfCrypto

/// Keychain item class (`kSecClass`).
public enum ItemClass: UInt8, Sendable, CaseIterable {
    /// `kSecClassGenericPassword`: primary key `account` + `service`.
    case genericPassword = 1
    /// `kSecClassInternetPassword`: primary key `account`, `server`, `protocol`,
    /// `port`, `path`, `securityDomain`, `authenticationType`.
    case internetPassword = 2
}

/// When an item may be read (`kSecAttrAccessible`). The `…ThisDeviceOnly`
/// values never leave this machine: such items are never written to the
/// shared (synced) vault file.
public enum Accessible: UInt8, Sendable, CaseIterable {
    case whenUnlocked = 1
    case afterFirstUnlock = 2
    case whenUnlockedThisDeviceOnly = 3
    case afterFirstUnlockThisDeviceOnly = 4
    case whenPasscodeSetThisDeviceOnly = 5

    /// True for the values that must stay on this device.
    public var isThisDeviceOnly: Bool {
        switch self {
        case .whenUnlocked, .afterFirstUnlock: false
        default: true
        }
    }
}

/// Access control flags (`kSecAttrAccessControl`).
public enum AccessControl: UInt8, Sendable, CaseIterable {
    /// No extra check once the vault is unlocked.
    case none = 0
    /// `userPresence`: the master password is asked again before the secret is released.
    case userPresence = 1
}

/// Which vault file an item lives in (DESIGN §1).
public enum Store: String, Sendable, CaseIterable, Codable {
    /// `local.vault`: the device's keychain; never synced.
    case local
    /// `shared.vault`: shared web credentials; may be synced between machines.
    case shared
}

/// A set of audit findings (docs/audit.md) as bits; an item keeps the ones
/// its user chose to ignore. Wire values are fixed (docs/vault-format.md).
public struct AuditProblems: OptionSet, Sendable, Hashable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    public static let weak = AuditProblems(rawValue: 1 << 0)
    public static let reused = AuditProblems(rawValue: 1 << 1)
    public static let compromised = AuditProblems(rawValue: 1 << 2)
    public static let insecure = AuditProblems(rawValue: 1 << 3)
}

/// One keychain item as persisted in a vault file.
///
/// Strings are plain Swift strings because they are not secret; the password
/// is a `Secret` in sodium-allocated memory. `server` holds the normalised
/// A-label form (DESIGN §1); `port` is 0 when it is the scheme's default.
public struct Item: Sendable, Equatable {
    /// Stable identity across edits and machines (used to merge synced copies).
    public var id: UUID { didSet { recordOrigin = .none } }
    public var itemClass: ItemClass { didSet { recordOrigin = .none } }
    /// `kSecAttrAccount`: the user name / login.
    public var account: String { didSet { recordOrigin = .none } }
    /// `kSecAttrService` (generic passwords only).
    public var service: String { didSet { recordOrigin = .none } }
    /// `kSecAttrServer` (internet passwords only), normalised A-label host.
    public var server: String { didSet { recordOrigin = .none } }
    /// `kSecAttrProtocol`, e.g. "https" (internet passwords only).
    public var `protocol`: String { didSet { recordOrigin = .none } }
    /// `kSecAttrPort`; 0 means the protocol's default port.
    public var port: Int { didSet { recordOrigin = .none } }
    /// `kSecAttrPath` (internet passwords only).
    public var path: String { didSet { recordOrigin = .none } }
    /// `kSecAttrSecurityDomain`, e.g. an HTTP realm (internet passwords only).
    public var securityDomain: String { didSet { recordOrigin = .none } }
    /// `kSecAttrAuthenticationType`, e.g. "default", "httpBasic".
    public var authenticationType: String { didSet { recordOrigin = .none } }
    /// `kSecAttrLabel`: a display name.
    public var label: String { didSet { recordOrigin = .none } }
    /// `kSecAttrComment`: the user's notes.
    public var comment: String { didSet { recordOrigin = .none } }
    /// An `otpauth://` URI (one-time codes, docs/otp.md); empty when none.
    public var otpauth: String { didSet { recordOrigin = .none } }
    /// `kSecAttrCreationDate`.
    public var creationDate: Date { didSet { recordOrigin = .none } }
    /// `kSecAttrModificationDate`; also the merge clock for synced copies.
    public var modificationDate: Date { didSet { recordOrigin = .none } }
    /// `kSecAttrAccessible`.
    public var accessible: Accessible { didSet { recordOrigin = .none } }
    /// `kSecAttrAccessControl`.
    public var accessControl: AccessControl { didSet { recordOrigin = .none } }
    /// `kSecAttrSynchronizable`: true for shared credentials.
    public var synchronizable: Bool { didSet { recordOrigin = .none } }
    /// `kSecValueData`: the password; nil only for tombstones.
    public var password: Secret? { didSet { recordOrigin = .none } }
    /// git's `password_expiry_utc`: when the password (an OAuth access token)
    /// expires, in seconds since 1970-01-01 UTC; nil when it does not.
    public var passwordExpiryUTC: UInt64? { didSet { recordOrigin = .none } }
    /// git's `oauth_refresh_token`: a secret like the password, kept in the
    /// sealed record; nil when none.
    public var oauthRefreshToken: Secret? { didSet { recordOrigin = .none } }
    /// A tombstone: the item was deleted at `modificationDate`; kept so that
    /// merging an older synced copy does not bring it back.
    public var isDeleted: Bool { didSet { recordOrigin = .none } }
    /// The audit findings the user chose to ignore for this item (`keyshelf audit ignore`).
    public var ignoredFindings: AuditProblems { didSet { recordOrigin = .none } }
    /// Set for an account created with Sign in with Apple, which has no
    /// password (`password` nil although not a tombstone); nil for a password account.
    public var signInWithApple: AppleSignIn? { didSet { recordOrigin = .none } }
    /// The Apple developer team ID of a Sign in with Apple private key (a
    /// generic item, docs/sign-in-with-apple.md); empty for other items.
    public var appleTeamID: String { didSet { recordOrigin = .none } }
    /// The merge order of this record's last change (docs/sync.md); nil for
    /// an item not saved yet. A save stamps every record that `needsStamp`.
    public var changeStamp: ChangeStamp? {
        get { stampSlot.stamp }
        set { stampSlot.stamp = newValue }
    }
    /// Holds `changeStamp`; its equality makes an unstamped record equal to
    /// the same record read back with its fallback stamp.
    var stampSlot: StampSlot { didSet { recordOrigin = .none } }
    /// Earlier passwords, newest first (`PasswordHistory`); empty in a tombstone.
    public var passwordHistory: [PasswordHistoryEntry] { didSet { recordOrigin = .none } }
    /// The record this item still is, byte for byte (`RecordOrigin`); every
    /// stored property above clears it when set, so that a save writes the
    /// item again. A new stored property needs the same observer
    /// (AttributeTableTests checks each attribute).
    var recordOrigin = RecordOrigin.none

    public init(
        id: UUID = UUID(),
        itemClass: ItemClass = .internetPassword,
        account: String,
        service: String = "",
        server: String = "",
        protocol: String = "https",
        port: Int = 0,
        path: String = "",
        securityDomain: String = "",
        authenticationType: String = "default",
        label: String = "",
        comment: String = "",
        otpauth: String = "",
        creationDate: Date = Date(),
        modificationDate: Date? = nil,
        accessible: Accessible = .whenUnlocked,
        accessControl: AccessControl = .none,
        synchronizable: Bool = false,
        password: Secret?,
        passwordExpiryUTC: UInt64? = nil,
        oauthRefreshToken: Secret? = nil,
        isDeleted: Bool = false,
        ignoredFindings: AuditProblems = [],
        signInWithApple: AppleSignIn? = nil,
        appleTeamID: String = "",
        changeStamp: ChangeStamp? = nil,
        passwordHistory: [PasswordHistoryEntry] = []
    ) {
        self.id = id
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
        self.comment = comment
        self.otpauth = otpauth
        self.creationDate = creationDate
        self.modificationDate = modificationDate ?? creationDate
        self.accessible = accessible
        self.accessControl = accessControl
        self.synchronizable = synchronizable
        self.password = password
        self.passwordExpiryUTC = passwordExpiryUTC
        self.oauthRefreshToken = oauthRefreshToken
        self.isDeleted = isDeleted
        self.ignoredFindings = ignoredFindings
        self.signInWithApple = signInWithApple
        self.appleTeamID = appleTeamID
        self.stampSlot = StampSlot(stamp: changeStamp)
        self.passwordHistory = passwordHistory
    }
}
