import KeyshelfCrypto

/// One record released by `SharedWebCredentials.request` (DESIGN §3):
/// `server`, `account`, `password`, and `port` only when not 443.
public struct SharedCredential: Sendable, Equatable {
    /// The server the record belongs to.
    public var server: ServerName
    /// The account (user name).
    public var account: String
    /// The released password.
    public var password: Secret
    /// git's OAuth expiry and refresh token kept with it; empty for most records.
    public var oauth: OAuthAttributes
    /// The port, present only when it is not 443 (`ServerName.reportedPort`).
    public var port: Int? { server.reportedPort }

    public init(server: ServerName, account: String, password: Secret, oauth: OAuthAttributes = OAuthAttributes()) {
        self.server = server
        self.account = account
        self.password = password
        self.oauth = oauth
    }
}

/// What an add did (`SharedWebCredentials.add`, `Keyshelf.add`).
public enum AddOutcome: Sendable, Equatable {
    /// A new record was stored (no prompt).
    case added
    /// An existing record got a new password (after consent).
    case updated
    /// The record already held this password; nothing changed, nobody was asked.
    case unchanged
    /// The record was deleted (nil password, after consent).
    case deleted
}
