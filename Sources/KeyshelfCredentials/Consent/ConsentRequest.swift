/// A question the domain layer asks before it releases, updates or deletes a
/// saved password (DESIGN §5). The TUI shows it as a dialog, the CLI on `/dev/tty`.
public enum ConsentRequest: Sendable, Equatable {
    /// Overwrite the saved password of `account` at `server`.
    case update(server: ServerName, account: String)
    /// Delete the saved password of `account` at `server`.
    case delete(server: ServerName, account: String)
    /// Release a shared password for `server`; the user picks one of `accounts` or declines.
    case release(server: ServerName, accounts: [String])
    /// Release a shared password for `server` to the associated client `client`
    /// (`get --client`, `credential --client`; docs/associated-domains.md).
    case releaseToClient(client: String, server: ServerName, accounts: [String])
    /// Overwrite the saved generic password of `account` for `service` (issue 13 rule 4).
    case updateService(service: String, account: String)
    /// Delete the saved generic password of `account` for `service`.
    case deleteService(service: String, account: String)

    /// "Update Saved Password?", "Delete Saved Password?" or "Use Saved Password for DOMAIN?".
    public var title: String {
        switch self {
        case .update, .updateService: "Update Saved Password?"
        case .delete, .deleteService: "Delete Saved Password?"
        case .release(let server, _), .releaseToClient(_, let server, _): "Use Saved Password for \(server.qualified)?"
        }
    }

    /// A sentence naming the account(s) and the domain.
    public var message: String {
        switch self {
        case .update(let server, let account):
            "Replace the saved password for \(InertText.quoted(account)) on \(server.qualified)?"
        case .delete(let server, let account):
            "Remove the saved password for \(InertText.quoted(account)) on \(server.qualified)? This cannot be undone."
        case .release(let server, let accounts):
            accounts.count == 1
                ? "Allow the password for \(InertText.quoted(accounts[0])) on \(server.qualified) to be used?"
                : "Choose which saved account on \(server.qualified) to use (\(accounts.count) accounts)."
        case .updateService(let service, let account):
            "Replace the saved password for \(InertText.quoted(account)) of service \(InertText.quoted(service))?"
        case .deleteService(let service, let account):
            "Remove the saved password for \(InertText.quoted(account)) of service \(InertText.quoted(service))? This cannot be undone."
        case .releaseToClient(let client, let server, let accounts):
            accounts.count == 1
                ? "Allow \(InertText.quoted(client)) to use the password for \(InertText.quoted(accounts[0])) on \(server.qualified)?"
                : "Choose which saved account on \(server.qualified) \(InertText.quoted(client)) may use (\(accounts.count) accounts)."
        }
    }

    /// Button labels, the safe one first: "Not Now" · "Update", "Cancel" ·
    /// "Delete", or "Not Now" followed by one button per account to choose
    /// (unsafe scalars in an account shown escaped by `InertText`, e.g. `\u{1B}`).
    /// Titles and messages quote accounts the same way.
    public var buttons: [String] {
        switch self {
        case .update, .updateService: ["Not Now", "Update"]
        case .delete, .deleteService: ["Cancel", "Delete"]
        case .release(_, let accounts), .releaseToClient(_, _, let accounts): ["Not Now"] + accounts.map(Self.inert)
        }
    }

    /// Indexes into `buttons` of the destructive choices, which a dialog draws
    /// as such: the approving button of an update or a delete. None for a
    /// release, whose buttons are account names (an account named "Delete"
    /// is not a destructive choice).
    public var destructiveButtons: Set<Int> {
        switch self {
        case .update, .delete, .updateService, .deleteService: [1]
        case .release, .releaseToClient: []
        }
    }

    /// `account` quoted by `InertText.quoted`, without the outer quotes.
    static func inert(_ account: String) -> String {
        String(InertText.quoted(account).dropFirst().dropLast())
    }

    /// The answer a button gives: index 0 declines; for `release` index i ≥ 1
    /// chooses `accounts[i - 1]`; otherwise any other index approves.
    public func answer(forButton index: Int) -> ConsentAnswer {
        guard index > 0 else { return .declined }
        switch self {
        case .release(_, let accounts), .releaseToClient(_, _, let accounts):
            if index - 1 < accounts.count { return .chose(account: accounts[index - 1]) }
        case .update, .delete, .updateService, .deleteService: break
        }
        return .approved
    }
}

/// The user's answer to a `ConsentRequest`.
public enum ConsentAnswer: Sendable, Equatable {
    /// No, Esc, `n`, or nobody to ask: the caller fails with `errSecUserCanceled`.
    case declined
    /// Yes (or `--yes`); for `release`, every listed account may be used.
    case approved
    /// For `release`: only this account may be used.
    case chose(account: String)
}
