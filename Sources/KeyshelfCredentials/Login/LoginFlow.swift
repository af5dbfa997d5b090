import KeyshelfCrypto

/// Asks the user for an account and password (login-flow step 3, DESIGN §4).
public protocol LoginPrompt {
    /// Asks for a credential for `server`.
    /// - Parameters:
    ///   - account: the account to pre-fill, when known.
    ///   - suggestion: a freshly generated password the user may accept (honouring the
    ///     domain's saved `passwordrules`, `Keyshelf.generatePassword(for:)`).
    ///   - failedAttempts: how many credentials the check has refused so far (0 at first).
    /// - Returns: the credential, or nil when the user canceled.
    func credential(for server: ServerName, account: String?, suggestion: Secret, failedAttempts: Int) -> PromptedCredential?
}

/// A credential typed at the login prompt.
public struct PromptedCredential: Sendable {
    public var account: String
    public var password: Secret

    public init(account: String, password: Secret) {
        self.account = account
        self.password = password
    }
}

/// Tries a credential (login-flow step 4, DESIGN §4).
public protocol CredentialCheck {
    /// Whether the service accepts `password` for `account` at `server`.
    /// - Throws: when the check itself cannot run (e.g. the command cannot start).
    func accepts(server: ServerName, account: String, password: Secret) throws -> Bool
}

/// Where the login flow found the credential it returned.
public enum LoginSource: Sendable, Equatable {
    /// Step 1: the local store.
    case local
    /// Step 2: shared credentials, released with consent.
    case shared
    /// Step 3: typed (or the generated suggestion accepted) at the prompt.
    case prompt
}

/// The login flow's answer.
public struct LoginResult: Sendable {
    /// The credential to use.
    public var record: CredentialRecord
    public var source: LoginSource
    /// What step 5 saved; nil when nothing was saved (a local credential was
    /// used, or `saveOnSuccess` was off). A shared credential that worked
    /// reports the local store's outcome and `shared: .unchanged`.
    public var saved: SaveResult?
}

/// The login flow, exactly DESIGN §4:
/// 1. the local store for the server (and account) — found → used, no prompt;
/// 2. otherwise shared credentials, released with consent (the user picks one);
/// 3. otherwise, or when declined, the prompt, offering a generated password;
/// 4. the check, when configured (a stored credential is checked too; if it
///    is refused the flow continues at 3); no check → accepted;
/// 5. a prompted credential that is accepted is saved to both stores
///    (`Keyshelf.save`, so changing an existing shared password asks consent);
///    a refused one saves nothing and the flow returns to 3.
///
/// A credential found in step 2 that works is saved to the local store
/// (DESIGN §4; issue 13 rule 3); one found in step 1 is never copied to the
/// shared file (a `…ThisDeviceOnly` item must not leave the device).
/// A Sign in with Apple account found in step 1 or 2 is returned as it is (its
/// record's `signInWith` is `.apple`, no password): there is nothing to
/// check, prompt or save.
public struct LoginFlow {
    public var prompt: any LoginPrompt
    public var check: (any CredentialCheck)?
    /// How many prompted credentials the check may refuse before the flow
    /// gives up with `errSecAuthFailed`.
    public var maxAttempts: Int
    /// Whether step 5 runs; the git helper's `get` turns it off (git calls `store` itself).
    public var saveOnSuccess: Bool
    /// Whether steps 1–2 pass over Sign in with Apple accounts; the git helper
    /// sets it (git needs a password).
    public var passwordsOnly: Bool

    public init(prompt: any LoginPrompt, check: (any CredentialCheck)? = nil, maxAttempts: Int = 3,
                saveOnSuccess: Bool = true, passwordsOnly: Bool = false) {
        self.prompt = prompt
        self.check = check
        self.maxAttempts = maxAttempts
        self.saveOnSuccess = saveOnSuccess
        self.passwordsOnly = passwordsOnly
    }

    /// Runs the flow for `server` (and `account`) over `steps`: a `Keyshelf`
    /// (the direct path), or the CLI's steps that run the vault part in the
    /// unlocked agent. The prompt and the check run here.
    /// - Throws: `errSecUserCanceled` when the prompt is canceled;
    ///   `errSecAuthFailed` after `maxAttempts` refused credentials (or a
    ///   failed user-presence check); `errSecParam` for an empty account;
    ///   `PasswordRulesError` when the domain's saved rule cannot be used;
    ///   errors of the check and the vault.
    public func run(_ steps: some LoginSteps, server: ServerName, account: String? = nil) throws -> LoginResult {
        var failed = 0
        var knownAccount = account
        let found = try steps.findCredential(server: server, account: account, passwordsOnly: passwordsOnly)
        if let found, found.signInWith == .apple {
            return LoginResult(record: found, source: found.store == .local ? .local : .shared, saved: nil)
        }
        if let found, let password = found.password {
            if try accepted(server: server, account: found.account, password: password) {
                guard found.store == .shared, saveOnSuccess else {
                    return LoginResult(record: found, source: found.store == .local ? .local : .shared, saved: nil)
                }
                // The reference's listing 3: request, log in, save to the keychain; the shared record stays.
                let saved = try steps.keepLocally(server: found.server, account: found.account, password: password)
                return LoginResult(record: found, source: .shared, saved: saved)
            }
            failed = 1
            knownAccount = found.account
        }
        var refused = 0
        while true {
            let suggestion = try steps.suggestedPassword(for: server)
            guard let typed = prompt.credential(for: server, account: knownAccount, suggestion: suggestion, failedAttempts: failed) else {
                throw KeychainError.canceled("the login for \(server.qualified) was canceled")
            }
            guard !typed.account.isEmpty else { throw KeychainError.param("the account is empty") }
            if try accepted(server: server, account: typed.account, password: typed.password) {
                let saved = saveOnSuccess ? try steps.saveToBothStores(server: server, account: typed.account, password: typed.password) : nil
                let record = CredentialRecord(server: server, account: typed.account, password: typed.password, store: .local)
                return LoginResult(record: record, source: .prompt, saved: saved)
            }
            failed += 1
            refused += 1
            knownAccount = typed.account
            if refused >= maxAttempts {
                throw KeychainError(.authFailed, "\(server.qualified) refused the credential \(refused) times")
            }
        }
    }

    private func accepted(server: ServerName, account: String, password: Secret) throws -> Bool {
        guard let check else { return true }
        return try check.accepts(server: server, account: account, password: password)
    }
}
