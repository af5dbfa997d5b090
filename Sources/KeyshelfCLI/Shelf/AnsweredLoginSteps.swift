import KeyshelfCredentials
import KeyshelfCrypto

/// The login flow's vault steps (`LoginSteps`) as `ShelfOperation`s through
/// one `VaultOpener`: answered by the unlocked agent, else performed on the
/// vault opened here. `LoginFlow` runs the prompt and the check in this
/// process between them (DESIGN §4).
final class AnsweredLoginSteps: LoginSteps {
    private let opener: VaultOpener
    private let yes: Bool
    /// What `resolve` found, handed to the flow's own first lookup instead of asking twice.
    private var resolved: (server: ServerName, account: String?, record: CredentialRecord?)?

    init(opener: VaultOpener, yes: Bool) {
        self.opener = opener
        self.yes = yes
    }

    /// Steps 1–2 for the command's SERVER (the `lookup` operation): the
    /// server it resolves to (a scheme-less one is the saved account's, https
    /// when none) and what was found there; `findCredential` then returns it.
    /// - Throws: as `VaultOpener.answer`.
    func resolve(_ pattern: ServerPattern, account: String?) throws -> ServerName {
        let found = try opener.answer(.lookup(server: pattern, account: account, passwordsOnly: false), yes: yes, value: \.lookedUp)
        resolved = (found.server, account, found.record)
        return found.server
    }

    func findCredential(server: ServerName, account: String?, passwordsOnly: Bool) throws -> CredentialRecord? {
        if let resolved, resolved.server == server, resolved.account == account, !passwordsOnly {
            self.resolved = nil
            return resolved.record
        }
        return try opener.answer(.lookup(server: ServerPattern(server), account: account, passwordsOnly: passwordsOnly),
                                 yes: yes, value: \.lookedUp).record
    }

    func suggestedPassword(for server: ServerName) throws -> Secret {
        try opener.answer(.suggestPassword(server: server), yes: yes, value: \.generated)
    }

    func saveToBothStores(server: ServerName, account: String, password: Secret) throws -> SaveResult {
        try opener.answer(.saveLogin(server: server, account: account, password: password, localOnly: false), yes: yes, value: \.saved)
    }

    func keepLocally(server: ServerName, account: String, password: Secret) throws -> SaveResult {
        try opener.answer(.saveLogin(server: server, account: account, password: password, localOnly: true), yes: yes, value: \.saved)
    }
}
