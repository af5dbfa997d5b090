import Foundation
import KeyshelfVault

/// What the TUI's list and detail know about an item's one-time-code secret,
/// without the secret (docs/otp.md, "TUI").
public struct OneTimeCodeSummary: Sendable, Equatable {
    /// The secret's kind; nil when the stored value cannot be used (computing then says why).
    public var kind: OTPAuth.Kind?
    /// True when a code can be made at any time without a question and
    /// without a write (TOTP, no `userPresence`): the TUI shows it live.
    /// HOTP codes advance the saved counter, and a `userPresence` item asks
    /// the master password, so those are made only on request.
    public var live: Bool

    public init(kind: OTPAuth.Kind?, live: Bool) {
        self.kind = kind
        self.live = live
    }
}

/// One-time codes of listed entries, for the TUI (it browses the user's own
/// vault: as with `reveal`, no release consent for shared items; a
/// `userPresence` item re-asks the master password).
extension Keyshelf {
    /// Every live internet-password entry with a one-time-code secret, by item id.
    public func oneTimeCodeSummaries() -> [UUID: OneTimeCodeSummary] {
        var summaries: [UUID: OneTimeCodeSummary] = [:]
        for store in Store.allCases {
            let items = snapshot[store]
            // By index: binding each item would copy all its strings.
            for i in items.indices where !items[i].otpauth.isEmpty && !items[i].isDeleted && items[i].itemClass == .internetPassword {
                let kind = (try? OTPAuth.parse(items[i].otpauth))?.kind
                summaries[items[i].id] = OneTimeCodeSummary(kind: kind, live: kind == .totp && items[i].accessControl != .userPresence)
            }
        }
        return summaries
    }

    /// The code of `entry` at `time` (a HOTP code advances the saved counter, as `oneTimeCode(server:…)`).
    /// - Parameter time: Unix time in seconds (not negative).
    /// - Throws: `errSecItemNotFound` (gone, or no secret), `errSecUserCanceled`,
    ///   `errSecAuthFailed` (master password of a `userPresence` item), `errSecParam`, vault errors.
    public func oneTimeCode(of entry: CredentialEntry, at time: Int64) throws -> OneTimeCode {
        let auth = try entrySecret(entry, purpose: .show)
        return auth.code(at: time)
    }

    /// The code of `entry` to copy at `time` and the Unix second it is valid
    /// from (`OTPAuth.copyTime`); one question at most for a `userPresence` item.
    /// - Throws: as `oneTimeCode(of:at:)`.
    public func oneTimeCodeToCopy(of entry: CredentialEntry, at time: Int64) throws -> (code: OneTimeCode, validFrom: Int64) {
        let auth = try entrySecret(entry, purpose: .copy)
        let validFrom = auth.copyTime(at: time)
        return (auth.code(at: validFrom), validFrom)
    }

    /// The entry's parsed secret after the `userPresence` check; HOTP's counter advanced.
    private func entrySecret(_ entry: CredentialEntry, purpose: RevealPurpose) throws -> OTPAuth {
        guard let item = snapshot[entry.store].first(where: { $0.id == entry.id && !$0.isDeleted }) else {
            throw KeychainError.notFound("\(InertText.quoted(entry.account)) on \(entry.server.display) is gone")
        }
        guard !item.otpauth.isEmpty else {
            throw KeychainError.notFound("\(InertText.quoted(entry.account)) on \(entry.server.display) has no one-time-code secret; add one with `keyshelf otp set`")
        }
        if item.accessControl == .userPresence {
            let local = LocalStore(items: snapshot[entry.store])
            _ = try withUserPresence(reason: "\(purpose.rawValue) the one-time code for \(InertText.quoted(entry.account)) on \(entry.server.display)") { check in
                try local.copyMatching(.item(item.id), limit: .one, returnData: true, userPresence: check)
            }
        }
        let auth = try Self.parsedSecret(item, server: entry.server)
        return auth.kind == .hotp ? try advanceCounter(item, in: entry.store, server: entry.server) : auth
    }
}
