import Foundation
import KeyshelfCrypto
import KeyshelfVault

/// What `Keyshelf.oneTimeCode` found and computed.
public struct OneTimeCodeResult: Sendable {
    public let server: ServerName
    public let account: String
    public let store: Store
    public let code: OneTimeCode
}

/// One-time codes (DESIGN §11, docs/otp.md): the secret is the item's
/// `otpauth` attribute. Finding it follows `get`: the local store first
/// (a `userPresence` item re-asks the master password), then the shared
/// credentials, released with consent (`.release`).
extension Keyshelf {
    /// `keyshelf otp SERVER [ACCOUNT]`: the code of the account's secret at `time`.
    ///
    /// HOTP: the code of the stored counter; the counter + 1 is saved in the
    /// vault's locked write before the code is returned, so no code is
    /// shown twice (a write, also for a read-only-looking command).
    /// - Parameter time: Unix time in seconds (not negative).
    /// - Throws: `errSecItemNotFound` (no such account, or it has no secret),
    ///   `errSecUserCanceled` (release or master password declined),
    ///   `errSecAuthFailed`, `errSecParam` (the stored secret does not parse, or
    ///   a HOTP counter at `OTPAuth.maximumCounter`), vault errors.
    public func oneTimeCode(server: ServerName, account: String? = nil, in filter: StoreFilter = .both,
                            at time: Int64) throws -> OneTimeCodeResult {
        let (store, item, auth) = try oneTimeSecret(server: server, account: account, in: filter)
        return OneTimeCodeResult(server: server, account: item.account, store: store, code: auth.code(at: time))
    }

    /// `keyshelf otp SERVER [ACCOUNT] --clip`: the code to put on the
    /// clipboard at `time` and the Unix second it is valid from: `time`, or
    /// the next period's start when the code at `time` has too few seconds
    /// left (`OTPAuth.copyTime`); the caller waits until then before copying.
    /// Found, released and (HOTP) advanced as `oneTimeCode`.
    /// - Parameter time: Unix time in seconds (not negative).
    /// - Throws: as `oneTimeCode`.
    public func oneTimeCodeToCopy(server: ServerName, account: String? = nil, in filter: StoreFilter = .both,
                                  at time: Int64) throws -> (result: OneTimeCodeResult, validFrom: Int64) {
        let (store, item, auth) = try oneTimeSecret(server: server, account: account, in: filter)
        let validFrom = auth.copyTime(at: time)
        return (OneTimeCodeResult(server: server, account: item.account, store: store, code: auth.code(at: validFrom)), validFrom)
    }

    /// The item, its store and its parsed secret for `oneTimeCode`; HOTP's
    /// counter is advanced first (the secret returned holds the counter of the code to show).
    private func oneTimeSecret(server: ServerName, account: String?, in filter: StoreFilter) throws -> (Store, Item, OTPAuth) {
        let (store, item) = try oneTimeItem(server: server, account: account, in: filter, alwaysAsk: false)
        var auth = try Self.parsedSecret(item, server: server)
        if auth.kind == .hotp {
            auth = try advanceCounter(item, in: store, server: server)
        }
        return (store, item, auth)
    }

    /// `keyshelf otp uri SERVER ACCOUNT`: the secret as an `otpauth://` URI.
    /// The URI lets anyone make codes for ever, so it is released only with
    /// consent (`.release`), from either store.
    /// - Throws: as `oneTimeCode`.
    public func oneTimeURI(server: ServerName, account: String, in filter: StoreFilter = .both) throws -> String {
        let (_, item) = try oneTimeItem(server: server, account: account, in: filter, alwaysAsk: true)
        // Secrets stored before labels were completed print with one as well.
        return try Self.parsedSecret(item, server: server).labeled(account: item.account, issuer: server.display).uri
    }

    /// `keyshelf otp set SERVER ACCOUNT`: stores `secret` (as its canonical
    /// URI) in the account, in the first store of `filter` that holds it.
    /// Replacing another secret asks consent (`.update`), as for a password.
    /// A secret without a label gets the item's account and the server as
    /// issuer (`OTPAuth.labeled`).
    /// - Throws: `errSecItemNotFound` (no such account), `errSecUserCanceled`, vault errors.
    public func setOneTimeSecret(_ secret: OTPAuth, server: ServerName, account: String, in filter: StoreFilter = .both) throws {
        let now = Date()
        try mutate { items, consent in
            let query = ItemQuery.internet(server, account: account)
            guard let store = filter.stores.first(where: { items[$0].contains(where: query.matches) }) else {
                throw KeychainError.notFound("no saved account \(InertText.quoted(account)) on \(server.qualified); add it first with `keyshelf add`")
            }
            try Self.editing(store, of: &items) { local in
                let index = local.items.firstIndex(inPlace: query.matches)!
                let uri = secret.labeled(account: local.items[index].account, issuer: server.display).uri
                let current = local.items[index].otpauth
                if current == uri { return }
                if !current.isEmpty, consent.ask(.update(server: server, account: account)) == .declined {
                    throw KeychainError.canceled("replacing the one-time-code secret of \(InertText.quoted(account)) on \(server.qualified) was declined")
                }
                local.items[index].otpauth = uri
                local.items[index].modificationDate = now
            }
        }
    }

    /// The item with a one-time-code secret for `server` (and `account`):
    /// the local store's first (by account), else the shared one's after
    /// consent. `alwaysAsk` asks `.release` for a local item too.
    private func oneTimeItem(server: ServerName, account: String?, in filter: StoreFilter,
                             alwaysAsk: Bool) throws -> (Store, Item) {
        let query = ItemQuery.internet(server, account: account)
        var anyAccount = false
        for store in filter.stores {
            let matches = snapshot[store].filter(query.matches)
            anyAccount = anyAccount || !matches.isEmpty
            let withSecret = matches.filter { !$0.otpauth.isEmpty }.sorted { $0.account < $1.account }
            guard var chosen = withSecret.first else { continue }
            if store == .shared || alwaysAsk {
                switch consent.ask(.release(server: server, accounts: withSecret.map(\.account))) {
                case .declined:
                    throw KeychainError.canceled("releasing the one-time code of \(InertText.quoted(chosen.account)) on \(server.qualified) was declined")
                case .approved: break
                case .chose(let name): chosen = withSecret.first { $0.account == name } ?? chosen
                }
            }
            if chosen.accessControl == .userPresence {
                let local = LocalStore(items: snapshot[store])
                _ = try withUserPresence(reason: "use the one-time code for \(InertText.quoted(chosen.account)) on \(server.qualified)") { check in
                    try local.copyMatching(.item(chosen.id), limit: .one, returnData: true, userPresence: check)
                }
            }
            return (store, chosen)
        }
        let who = account.map { "\(InertText.quoted($0)) on " } ?? ""
        if anyAccount {
            throw KeychainError.notFound("\(who)\(server.qualified) has no one-time-code secret; add one with `keyshelf otp set`")
        }
        throw KeychainError.notFound("no saved account for \(who)\(server.qualified)")
    }

    /// Saves the HOTP counter + 1 in the locked write and returns the secret
    /// with the counter the code is computed from (the stored one, re-read
    /// under the lock, so two processes never show the same code).
    /// - Throws: `errSecParam` when the counter is `OTPAuth.maximumCounter`
    ///   (it cannot grow, so the code would repeat), vault errors.
    func advanceCounter(_ item: Item, in store: Store, server: ServerName) throws -> OTPAuth {
        let now = Date()
        return try mutate { items, _ in
            try Self.editing(store, of: &items) { local in
                guard let index = local.items.firstIndex(inPlace: ItemQuery.item(item.id).matches) else {
                    throw KeychainError.notFound("the account \(InertText.quoted(item.account)) on \(server.qualified) is gone")
                }
                let current = try Self.parsedSecret(local.items[index], server: server)
                guard current.kind == .hotp else { return current }
                // The counter after this code could not be saved: showing it would repeat it next time.
                guard current.counter < OTPAuth.maximumCounter else {
                    throw KeychainError(.param, "the HOTP counter of \(InertText.quoted(item.account)) on \(server.display) is at its maximum (\(OTPAuth.maximumCounter)): no further code can be made without repeating one; set a new secret with `keyshelf otp set`")
                }
                var next = current
                next.counter += 1
                local.items[index].otpauth = next.uri
                local.items[index].modificationDate = now
                return current
            }
        }
    }

    /// The item's stored secret, parsed; a stored value that no longer
    /// parses is `errSecParam` (the message never repeats the secret).
    static func parsedSecret(_ item: Item, server: ServerName) throws -> OTPAuth {
        do {
            return try OTPAuth.parse(item.otpauth)
        } catch {
            throw KeychainError(.param, "the one-time-code secret of \(InertText.quoted(item.account)) on \(server.qualified) cannot be used (\(error.reason)); replace it with `keyshelf otp set`")
        }
    }
}
