import Foundation
import KeyshelfCrypto
import KeyshelfVault

/// One web login read from another password manager's export, ready to be
/// merged into a store (`ImportMerge`): what KeyshelfTransfer's readers make
/// of a row, without the row's place in the file. Travels to the agent in
/// the `planImport` and `importLogins` operations.
public struct ImportLogin: Sendable, Equatable {
    /// The row's URL, normalised (DESIGN §1); an Android app login has the
    /// scheme `ServerName.appScheme` and its package as host.
    public var server: ServerName
    /// The URL's path (`/login`); "" when it is empty or "/".
    public var path: String
    /// The user name; never empty.
    public var account: String
    /// The password; never empty.
    public var password: Secret
    /// Title or name; the server's display form when the file has none.
    public var label: String
    /// Notes, as written in the file.
    public var comment: String
    /// An `otpauth://` URI, or "".
    public var otpauth: String
    /// When the source says the login was created; nil: the import's time.
    public var creationDate: Date?

    public init(server: ServerName, path: String, account: String, password: Secret, label: String, comment: String,
                otpauth: String, creationDate: Date?) {
        self.server = server
        self.path = path
        self.account = account
        self.password = password
        self.label = label
        self.comment = comment
        self.otpauth = otpauth
        self.creationDate = creationDate
    }

    /// The identity an import matches saved items on.
    public var key: InternetItemKey {
        InternetItemKey(host: server.host, scheme: server.scheme, port: server.port, account: account)
    }
}

/// The identity `ItemQuery.internet(server, account:)` matches an internet
/// password on: host, scheme, port and account (path and the other primary
/// key attributes left out). Import plans and export selections key on it.
public struct InternetItemKey: Hashable, Sendable {
    public let host: String
    public let scheme: String
    public let port: Int
    public let account: String

    public init(host: String, scheme: String, port: Int, account: String) {
        self.host = host
        self.scheme = scheme
        self.port = port
        self.account = account
    }

    /// The key of `item`; nil for a generic password.
    public init?(_ item: Item) {
        guard item.itemClass == .internetPassword else { return nil }
        self.init(host: item.server, scheme: item.protocol, port: item.port, account: item.account)
    }
}

extension ServerName {
    /// The scheme of an Android app login (`androidapp://PACKAGE`), whose host is the app's package name.
    public static let appScheme = "androidapp"

    /// Whether `package` is a Java package name as Android app logins carry
    /// it (letters, digits, `_` and `.`, not at either end).
    public static func isAppPackage(_ package: some StringProtocol) -> Bool {
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.")
        return !package.isEmpty && package.allSatisfy(allowed.contains) && !package.hasPrefix(".") && !package.hasSuffix(".")
    }
}
