import Foundation
import KeyshelfCrypto
import KeyshelfVault

/// Per-domain `passwordrules` saved in the vault: one generic password per
/// domain in the local store, `service` = `SavedPasswordRules.service`,
/// `account` = the domain key, the rule text as its data (docs/credentials.md).
///
/// Generic passwords are a Keychain class the vault format already carries, so
/// old vaults read unchanged and listings (internet passwords only) never show
/// the rules. The local store keeps them on this device, out of the synced
/// shared file and away from clients asking for shared credentials.
public enum SavedPasswordRules {
    /// The `kSecAttrService` of a saved rule.
    public static let service = "keyshelf.passwordrules"

    /// One saved rule.
    public struct Entry: Sendable, Equatable {
        /// The domain key, e.g. "example.com" or "example.com:8443" (A-label form).
        public var domain: String
        /// The rule text as saved.
        public var text: String
    }

    /// The key a rule for `server` is saved under: its normalised host (in
    /// brackets for IPv6) and `:port` when the port is not the scheme's default.
    /// The scheme is left out: a site's rules do not depend on http or https.
    public static func key(for server: ServerName) -> String {
        let host = server.isIPv6 ? "[\(server.host)]" : server.host
        return server.port == 0 ? host : "\(host):\(server.port)"
    }

    /// The keys looked up for `server`, most specific first: the key itself,
    /// the host without its port, then each parent domain down to two labels
    /// (`login.example.com` → `example.com`, never `com`). IP literals have no parents.
    public static func candidateKeys(for server: ServerName) -> [String] {
        var keys = [key(for: server)]
        let bare = key(for: ServerName(host: server.host, port: 0, scheme: server.scheme))
        if server.port != 0 { keys.append(bare) }
        let isIPv4 = server.host.split(separator: ".").allSatisfy { !$0.isEmpty && $0.allSatisfy(\.isNumber) }
        guard !server.isIPv6, !isIPv4 else { return keys }
        var labels = server.host.split(separator: ".")
        while labels.count > 2 {
            labels.removeFirst()
            keys.append(labels.joined(separator: "."))
        }
        return keys
    }

    /// The query for the rule saved under `key`.
    static func query(_ key: String) -> ItemQuery {
        ItemQuery(itemClass: .genericPassword, account: key, service: service)
    }

    /// The rule that applies to `server` in `items` (the local store's): the
    /// first of `candidateKeys` that has one; nil when none.
    public static func lookup(_ server: ServerName, in items: [Item]) -> Entry? {
        let store = LocalStore(items: items)
        for key in candidateKeys(for: server) {
            if let item = try? store.copyMatching(query(key), limit: .one, returnData: true).first,
               let text = item.password?.unsafeString() {
                return Entry(domain: key, text: text)
            }
        }
        return nil
    }

    /// Every saved rule, sorted by domain.
    public static func all(in items: [Item]) -> [Entry] {
        let store = LocalStore(items: items)
        let found = (try? store.copyMatching(ItemQuery(itemClass: .genericPassword, service: service), returnData: true)) ?? []
        return found.compactMap { item in item.password?.unsafeString().map { Entry(domain: item.account, text: $0) } }
            .sorted { $0.domain < $1.domain }
    }

    /// Saves `rules` under `key` in `store`, replacing a rule saved there before.
    /// - Throws: the store's `KeychainError`s.
    static func set(_ rules: PasswordRules, key: String, in store: inout LocalStore, now: Date) throws {
        let data = Secret(utf8: rules.text)
        if (try? store.copyMatching(query(key))) != nil {
            try store.update(query(key), with: ItemChanges(password: data), now: now)
        } else {
            try store.add(Item(itemClass: .genericPassword, account: key, service: service, protocol: "",
                               label: "passwordrules for \(key)", password: data), now: now)
        }
    }
}
