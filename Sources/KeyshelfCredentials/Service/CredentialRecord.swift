import Foundation
import KeyshelfCrypto
import KeyshelfVault

/// Which stores an operation looks at: both, or one (`--local` / `--shared`, DESIGN §8).
public enum StoreFilter: Sendable, Equatable {
    case both
    case local
    case shared

    /// Whether `store` is included.
    public func contains(_ store: Store) -> Bool {
        switch self {
        case .both: true
        case .local: store == .local
        case .shared: store == .shared
        }
    }

    /// The stores included, local first (the lookup order of DESIGN §4).
    public var stores: [Store] { Store.allCases.filter(contains) }
}

/// A credential as `--json` prints it (DESIGN §8): `server`, `account`,
/// `password` (when released), `port` (only when not 443), `store`.
///
/// Encodes `server` as the Unicode display host (without the port).
public struct CredentialRecord: Sendable, Equatable, Encodable {
    public var server: ServerName
    public var account: String
    /// The password; nil in listings, which print no secrets.
    public var password: Secret?
    /// git's OAuth expiry and refresh token (only the git helper prints
    /// them; not part of `--json`); empty in listings.
    public var oauth = OAuthAttributes()
    public var store: Store
    /// `.apple` for a Sign in with Apple account, which has no password (DESIGN §13).
    public var signInWith: SignInMethod = .password
    /// Label, notes and dates of the item (`get --json`, issue 13 rule 5); nil
    /// where not read (listings, the agent's `get` records; its `lookup` carries them).
    public var metadata: ItemMetadata?
    /// The port as the Shared Web Credentials calls report it: nil when 443.
    public var port: Int? { server.reportedPort }

    public init(server: ServerName, account: String, password: Secret?, store: Store) {
        self.server = server
        self.account = account
        self.password = password
        self.store = store
    }

    /// A local item read with its password (`copyMatching(returnData:)`), at `server`.
    init(local item: Item, server: ServerName) {
        self.init(server: server, account: item.account, password: item.password, store: .local)
        oauth = OAuthAttributes(of: item)
        signInWith = SignInMethod(of: item)
        metadata = ItemMetadata(item)
    }

    /// A released shared credential as a record of the shared store.
    public init(_ shared: SharedCredential) {
        self.init(server: shared.server, account: shared.account, password: shared.password, store: .shared)
        oauth = shared.oauth
    }

    private enum CodingKeys: String, CodingKey { case server, account, password, port, store, signInWith }

    /// The password becomes a `String` here, at the last moment; a password
    /// that is not valid UTF-8 is an encoding error, never silently changed.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(server.displayHost, forKey: .server)
        try c.encode(account, forKey: .account)
        if let password {
            guard let text = password.unsafeString() else {
                throw EncodingError.invalidValue(account, .init(codingPath: c.codingPath, debugDescription: "the password is not valid UTF-8"))
            }
            try c.encode(text, forKey: .password)
        }
        try c.encodeIfPresent(port, forKey: .port)
        try c.encode(store.rawValue, forKey: .store)
        if signInWith != .password { try c.encode(signInWith.rawValue, forKey: .signInWith) }
    }
}

/// What an item says about itself besides its key and secret.
public struct ItemMetadata: Sendable, Equatable {
    /// `kSecAttrLabel`.
    public var label: String
    /// `kSecAttrComment`: the notes, possibly several lines.
    public var notes: String
    public var created: Date
    public var modified: Date

    public init(label: String, notes: String, created: Date, modified: Date) {
        self.label = label
        self.notes = notes
        self.created = created
        self.modified = modified
    }

    init(_ item: Item) {
        label = item.label
        notes = item.comment
        created = item.creationDate
        modified = item.modificationDate
    }
}

/// One row of a domain's account list: everything but the secret.
public struct CredentialEntry: Sendable, Equatable, Identifiable {
    /// The item's stable id.
    public var id: UUID
    public var store: Store
    public var server: ServerName
    public var account: String
    /// `kSecAttrLabel`.
    public var label: String
    /// `kSecAttrComment`: the user's notes.
    public var comment: String
    public var creationDate: Date
    public var modificationDate: Date
    public var accessible: Accessible
    /// `.userPresence` means revealing asks the master password again.
    public var accessControl: AccessControl
    /// The audit findings the user ignores for this item (docs/audit.md).
    public var ignoredFindings: AuditProblems
    /// Set for a Sign in with Apple account (no password); nil for a password account.
    public var signInWithApple: AppleSignIn?

    init(item: Item, server: ServerName, store: Store) {
        id = item.id
        self.store = store
        self.server = server
        account = item.account
        label = item.label
        comment = item.comment
        creationDate = item.creationDate
        modificationDate = item.modificationDate
        accessible = item.accessible
        accessControl = item.accessControl
        ignoredFindings = item.ignoredFindings
        signInWithApple = item.signInWithApple
    }

    /// This entry as a record without its password (for `list --json`).
    public var record: CredentialRecord {
        var record = CredentialRecord(server: server, account: account, password: nil, store: store)
        if signInWithApple != nil { record.signInWith = .apple }
        return record
    }
}

/// One row of the domain list (DESIGN §7): the server, how many accounts, which stores.
public struct DomainSummary: Sendable, Equatable, Identifiable {
    public var server: ServerName
    /// Live accounts in the local store.
    public var localCount: Int
    /// Live accounts in the shared credentials.
    public var sharedCount: Int
    public var id: ServerName { server }
    /// All accounts of the domain, both stores.
    public var accountCount: Int { localCount + sharedCount }
    /// The stores holding at least one account, local first.
    public var stores: [Store] {
        (localCount > 0 ? [Store.local] : []) + (sharedCount > 0 ? [Store.shared] : [])
    }
}

/// What `Keyshelf.update` changes in an entry; nil fields stay.
public struct CredentialChanges: Sendable {
    public var account: String?
    /// A new password: asks consent (`.update`) first.
    public var password: Secret?
    public var comment: String?
    public var label: String?
    public var accessControl: AccessControl?
    /// The audit findings to ignore from now on (replaces the item's set).
    public var ignoredFindings: AuditProblems?

    public init(account: String? = nil, password: Secret? = nil, comment: String? = nil,
                label: String? = nil, accessControl: AccessControl? = nil, ignoredFindings: AuditProblems? = nil) {
        self.ignoredFindings = ignoredFindings
        self.account = account
        self.password = password
        self.comment = comment
        self.label = label
        self.accessControl = accessControl
    }
}
