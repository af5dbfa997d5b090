import KeyshelfCrypto

/// The vault's part of the login flow (DESIGN §4): what `LoginFlow` asks of
/// the stores, between the prompt and the check, which stay with the caller.
///
/// `Keyshelf` is the direct implementation. The CLI's implementation sends
/// each step as a `ShelfOperation` (`lookup`, `suggestPassword`,
/// `saveLogin`), so the vault part runs in the unlocked agent while the
/// prompt and the `--check` run in the client's terminal.
public protocol LoginSteps {
    /// Steps 1–2: the local store's credential for `server` (and `account`),
    /// else a shared one released with consent; nil when nothing was found
    /// or the release was declined (`Keyshelf.lookup`).
    /// - Parameter passwordsOnly: pass over Sign in with Apple accounts.
    /// - Throws: the vault's errors; `errSecAuthFailed` from a failed
    ///   user-presence check.
    func findCredential(server: ServerName, account: String?, passwordsOnly: Bool) throws -> CredentialRecord?
    /// Step 3's suggestion: a generated password that honours the domain's
    /// saved `passwordrules` (`Keyshelf.generatePassword(for:)`).
    /// - Throws: `PasswordRulesError` when the saved rule cannot be used.
    func suggestedPassword(for server: ServerName) throws -> Secret
    /// Step 5: saves a prompted credential to both stores (`Keyshelf.save`;
    /// replacing a saved password asks consent, a declined store is nil).
    /// - Throws: `errSecParam` and the vault's errors.
    func saveToBothStores(server: ServerName, account: String, password: Secret) throws -> SaveResult
    /// Step 5 for a shared credential that worked: saved to the local store
    /// only (the reference's listing 3); `shared` is `.unchanged`, and `local`
    /// nil when the update of a local item was declined.
    /// - Throws: `errSecParam` and the vault's errors.
    func keepLocally(server: ServerName, account: String, password: Secret) throws -> SaveResult
}

extension Keyshelf: LoginSteps {
    public func findCredential(server: ServerName, account: String?, passwordsOnly: Bool) throws -> CredentialRecord? {
        try lookup(server: server, account: account, passwordsOnly: passwordsOnly)
    }

    public func suggestedPassword(for server: ServerName) throws -> Secret {
        try generatePassword(for: server)
    }

    public func saveToBothStores(server: ServerName, account: String, password: Secret) throws -> SaveResult {
        try save(server: server, account: account, password: password)
    }

    public func keepLocally(server: ServerName, account: String, password: Secret) throws -> SaveResult {
        do {
            return SaveResult(local: try add(server: server, account: account, password: password, to: .local), shared: .unchanged)
        } catch let error as KeychainError where error.status == .userCanceled {
            return SaveResult(local: nil, shared: .unchanged)
        }
    }
}
