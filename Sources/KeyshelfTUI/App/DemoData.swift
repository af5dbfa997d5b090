import Foundation
import KeyshelfCredentials
import KeyshelfCrypto
import KeyshelfVault

/// Example credentials for `keyshelf demo`: IDN hosts, ports, several
/// accounts per domain, both stores, notes in several scripts, and a hostile
/// account name carrying a window-title escape sequence (shown inert).
enum DemoData {
    /// The demo vault's master password (shown in the title bar, for `X` then unlock).
    static let password = "demo"

    struct Sample {
        var server: String
        var account: String
        var store: Store
        var comment: String = ""
        var userPresence = false
    }

    static let samples: [Sample] = [
        Sample(server: "bücher.example", account: "anna@example.org", store: .shared, comment: "Bookshop account; order history since 2019."),
        Sample(server: "bücher.example", account: "bernd", store: .local),
        Sample(server: "faß.example", account: "fritz", store: .shared, comment: "faß and fass are different servers (UTS-46 non-transitional)."),
        Sample(server: "日本語.example", account: "太郎", store: .shared, comment: "東京の事務所"),
        Sample(server: "git.example.org:8443", account: "ci-bot", store: .shared, comment: "Token for the build farm."),
        Sample(server: "git.example.org:8443", account: "deploy", store: .local, comment: "Asks the master password before it is shown.", userPresence: true),
        Sample(server: "http://intranet.example:8080", account: "admin", store: .local, comment: "Old wiki behind the VPN."),
        Sample(server: "example.com", account: "alice", store: .shared),
        Sample(server: "example.com", account: "bob", store: .shared),
        Sample(server: "example.com", account: "carol", store: .local, comment: "🔑 recovery codes are in the safe"),
        Sample(server: "example.com", account: "Jose\u{301}", store: .shared, comment: "Account name with a combining accent."),
        Sample(server: "mail.example.net", account: "me@example.net", store: .shared),
        Sample(server: "mail.example.net", account: "me@example.net", store: .local, comment: "Same login in both stores."),
        Sample(server: "shop.example", account: "mallory\u{1B}]0;pwned\u{07}", store: .shared,
               comment: "Imported with escape sequences:\u{1B}[2J\u{1B}]52;c;aGk=\u{07} they must show inert."),
        Sample(server: "[2001:db8::1]:8443", account: "root", store: .local, comment: "Router management page."),
        Sample(server: "xn--mnchen-3ya.example", account: "muc", store: .shared, comment: "Entered as an A-label, shown as Unicode."),
    ]

    /// Creates a throwaway vault in a new temporary folder and fills it.
    /// - Returns: the folder (remove it at exit) and the unlocked session.
    static func makeVault() throws -> (folder: URL, session: VaultSession) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("keyshelf-demo-\(UUID().uuidString)")
        let directory = VaultDirectory(url: folder.appendingPathComponent("vault"))
        let session = try directory.create(password: Secret(utf8: password), limits: .interactive)
        let keyshelf = try Keyshelf(vault: session, consent: ApproveAll())
        for sample in samples {
            try keyshelf.add(server: try ServerName(parsing: sample.server), account: sample.account,
                             password: Keyshelf.generatePassword(), to: sample.store, comment: sample.comment,
                             accessControl: sample.userPresence ? .userPresence : .none)
        }
        return (folder, session)
    }
}
