import Foundation
import KeyshelfCrypto
import KeyshelfVault

/// A Sign in with Apple private key kept in the local store (no secret inside).
public struct AppleDeveloperKey: Sendable, Equatable {
    /// The generic item's `service` for these keys.
    public static let service = "Sign in with Apple private key"

    /// The key ID (the `kid` header; the account of the generic item).
    public var keyID: String
    /// The developer team ID (the `iss` claim; vault tag 39).
    public var teamID: String
    public var label: String
    public var creationDate: Date
}

/// The developer's side of Sign in with Apple (DESIGN §13, docs/sign-in-with-apple.md):
/// `.p8` keys kept as local generic items, and client secrets signed with them.
extension Keyshelf {
    /// `keyshelf siwa key add`: keeps the PKCS#8 P-256 key `privateKeyPEM` for
    /// `keyID` of team `teamID` as a local generic item (never synced).
    /// - Throws: `SignInWithAppleError` ("key-id", "team-id", "key") for a
    ///   malformed ID or key; `errSecDuplicateItem` when `keyID` is kept already; vault errors.
    public func addAppleKey(keyID: String, teamID: String, privateKeyPEM: Secret, label: String = "") throws {
        try Self.checkIdentifier(keyID, "key-id", "key ID")
        try Self.checkIdentifier(teamID, "team-id", "team ID")
        do {
            try ES256.validate(privateKeyPEM: privateKeyPEM)
        } catch {
            throw SignInWithAppleError("key", error.reason)
        }
        let now = Date()
        let item = Item(itemClass: .genericPassword, account: keyID, service: AppleDeveloperKey.service, server: "", protocol: "",
                        authenticationType: "", label: label, password: privateKeyPEM, appleTeamID: teamID)
        try mutate { items, _ in try Self.editing(.local, of: &items) { try $0.add(item, now: now) } }
    }

    /// `keyshelf siwa key list`: the kept keys, sorted by key ID.
    public func appleKeys() -> [AppleDeveloperKey] {
        snapshot.local.filter(Self.appleKeyQuery(nil).matches)
            .map { AppleDeveloperKey(keyID: $0.account, teamID: $0.appleTeamID, label: $0.label, creationDate: $0.creationDate) }
            .sorted { $0.keyID < $1.keyID }
    }

    /// `keyshelf siwa client-secret`: the ES256 `client_secret` JWT for
    /// `clientID` (the service ID) signed with the kept key `keyID` (`ClientSecret`).
    /// - Throws: `errSecItemNotFound` when no key `keyID` is kept;
    ///   `SignInWithAppleError` ("days", "key"); the user-presence errors of `reveal`.
    public func appleClientSecret(keyID: String, clientID: String, days: Int = ClientSecret.maximumDays, now: Date = Date()) throws -> String {
        guard !clientID.isEmpty else { throw SignInWithAppleError("client-id", "the client ID (service ID) is empty") }
        let store = LocalStore(items: snapshot.local)
        let found = try withUserPresence(reason: "sign a client secret with the Sign in with Apple key \(InertText.quoted(keyID))") { check in
            do {
                return try store.copyMatching(Self.appleKeyQuery(keyID), limit: .one, returnData: true, userPresence: check)
            } catch let error as KeychainError where error.status == .itemNotFound {
                throw KeychainError.notFound("no Sign in with Apple key \(InertText.quoted(keyID)) is kept; add it with keyshelf siwa key add")
            }
        }
        guard let key = found.first, let pem = key.password else {
            throw KeychainError.notFound("the Sign in with Apple key \(InertText.quoted(keyID)) is gone")
        }
        return try ClientSecret.make(keyID: keyID, teamID: key.appleTeamID, clientID: clientID, days: days, now: now, privateKeyPEM: pem)
    }

    private static func appleKeyQuery(_ keyID: String?) -> ItemQuery {
        ItemQuery(itemClass: .genericPassword, account: keyID, service: AppleDeveloperKey.service)
    }

    /// Apple's key and team IDs are short upper-case alphanumerics (10 characters);
    /// any 1–32 ASCII letters and digits are accepted.
    private static func checkIdentifier(_ text: String, _ check: String, _ name: String) throws {
        guard (1...32).contains(text.utf8.count), text.utf8.allSatisfy({ $0 < 0x80 && (isalnum(Int32($0)) != 0) }) else {
            throw SignInWithAppleError(check, "the \(name) \(InertText.quoted(text)) is not 1 to 32 ASCII letters and digits")
        }
    }
}
