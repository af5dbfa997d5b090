import Foundation
import KeyshelfCrypto
import KeyshelfVault

/// Associations kept in the shared credentials (`shared.vault`, so they sync
/// with the credentials they guard), one generic password per association
/// (docs/vault-format.md, "Associations"):
///
/// | attribute | value |
/// | --- | --- |
/// | `service` | `keyshelf.association` |
/// | `account` | `APPID DOMAIN` (app identifier, one space, `AssociatedDomain.key`) |
/// | `label` | `APPID → DOMAIN` |
/// | data | UTF-8 JSON: `{"v":1,"state":…,"at":…,"path":…,"signed":…,"attempts":…,"next":…,"reason":…,"caPEM":…,"pin":…}` |
///
/// Generic passwords already exist in the format, so old vaults open
/// unchanged, sync merges these records like any other (ids, stamps,
/// tombstones), and listings, exports and requests (internet passwords
/// only) never see them. A record that does not decode is skipped.
public enum AssociationRecords {
    /// The `kSecAttrService` of an association.
    public static let service = "keyshelf.association"

    /// The `account` an association is stored under.
    static func account(_ app: AppIdentifier, _ domain: AssociatedDomain) -> String { "\(app.value) \(domain.key)" }

    static func query(_ app: AppIdentifier, _ domain: AssociatedDomain) -> ItemQuery {
        ItemQuery(itemClass: .genericPassword, account: account(app, domain), service: service)
    }

    /// Every association in `items` (the shared store's), sorted by app then domain.
    public static func all(in items: [Item]) -> [Association] {
        items.compactMap { item in
            guard !item.isDeleted, item.itemClass == .genericPassword, item.service == service else { return nil }
            return decode(item)
        }.sorted { ($0.app, $0.domain) < ($1.app, $1.domain) }
    }

    /// Saves `association`, replacing the one stored for its app and domain.
    /// - Throws: the store's `KeychainError`s.
    static func set(_ association: Association, in store: inout LocalStore, now: Date) throws {
        let query = query(association.app, association.domain)
        let data = Secret(utf8: encode(association))
        if (try? store.copyMatching(query)) != nil {
            try store.update(query, with: ItemChanges(password: data), now: now)
        } else {
            try store.add(Item(itemClass: .genericPassword, account: account(association.app, association.domain), service: service,
                               protocol: "", label: "\(association.app.value) → \(association.domain.key)",
                               accessible: .whenUnlocked, synchronizable: true, password: data), now: now)
        }
    }

    /// Removes the association of `app` and `domain`.
    /// - Throws: `errSecItemNotFound` when there is none.
    static func remove(_ app: AppIdentifier, _ domain: AssociatedDomain, in store: inout LocalStore, now: Date) throws {
        _ = try store.delete(query(app, domain), now: now)
    }

    /// The stored JSON shape.
    private struct Stored: Codable {
        var v = 1
        var state: String
        var at: Int64?
        var path: String?
        var signed: Bool?
        var attempts: Int?
        var next: Int64?
        var reason: String?
        var caPEM: String?
        var pin: String?
    }

    static func encode(_ association: Association) -> String {
        var stored = Stored(state: association.stateName, caPEM: association.trust.caPEM, pin: association.trust.pin)
        switch association.state {
        case let .verified(at, path, signed):
            stored.at = seconds(at)
            stored.path = path
            stored.signed = signed
        case let .declared(at):
            stored.at = seconds(at)
        case let .pending(attempts, next, reason):
            stored.attempts = attempts
            stored.next = seconds(next)
            stored.reason = reason
        case let .failed(at, reason):
            stored.at = seconds(at)
            stored.reason = reason
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: (try? encoder.encode(stored)) ?? Data(), as: UTF8.self)
    }

    static func decode(_ item: Item) -> Association? {
        let parts = item.account.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, let app = try? AppIdentifier(String(parts[0])), let domain = AssociatedDomain(key: String(parts[1])),
              let text = item.password?.unsafeString(),
              let stored = try? JSONDecoder().decode(Stored.self, from: Data(text.utf8)), stored.v == 1,
              let trust = try? AssociationTrust(caPEM: stored.caPEM, pin: stored.pin) else { return nil }
        let state: Association.State
        switch stored.state {
        case "verified":
            guard let at = stored.at, let path = stored.path else { return nil }
            state = .verified(at: date(at), path: path, signed: stored.signed ?? false)
        case "declared":
            guard let at = stored.at else { return nil }
            state = .declared(at: date(at))
        case "pending":
            guard let attempts = stored.attempts, let next = stored.next else { return nil }
            state = .pending(attempts: attempts, nextAttempt: date(next), reason: stored.reason ?? "")
        case "failed":
            state = .failed(at: date(stored.at ?? 0), reason: stored.reason ?? "")
        default:
            return nil
        }
        return Association(app: app, domain: domain, state: state, trust: trust)
    }

    private static func seconds(_ date: Date) -> Int64 { Int64(date.timeIntervalSince1970.rounded(.down)) }
    private static func date(_ seconds: Int64) -> Date { Date(timeIntervalSince1970: TimeInterval(seconds)) }
}
