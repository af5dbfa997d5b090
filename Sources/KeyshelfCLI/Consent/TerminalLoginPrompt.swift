import KeyshelfCredentials
import KeyshelfCrypto

/// Login-flow step 3 on `/dev/tty` (DESIGN §4): asks the account and the
/// password, offering the generated suggestion (Enter accepts it) when
/// `offersSuggestion`; without it an empty password cancels.
struct TerminalLoginPrompt: LoginPrompt {
    let terminal: Terminal
    /// False when signing in to an existing account (the git helper's `get`):
    /// generation belongs to creating an account.
    var offersSuggestion = true

    func credential(for server: ServerName, account: String?, suggestion: Secret, failedAttempts: Int) -> PromptedCredential? {
        if failedAttempts > 0 {
            terminal.write("That credential was refused (\(failedAttempts) so far).\n")
        }
        terminal.write("Sign in to \(InertText.make(server.qualified))\n")
        let accountPrompt = account.map { "Account [\(InertText.make($0))]: " } ?? "Account: "
        guard let typed = try? terminal.readLine(prompt: accountPrompt) else { return nil }
        let chosenAccount = typed.isEmpty ? (account ?? "") : typed
        guard !chosenAccount.isEmpty else { return nil }
        guard offersSuggestion else {
            guard let password = try? terminal.readSecret(prompt: "Password: "), password.byteCount > 0 else { return nil }
            return PromptedCredential(account: chosenAccount, password: password)
        }
        terminal.write("Suggested password: ")
        suggestion.withUnsafeBytes { FileOutput(fd: terminal.fd).write($0.bindMemory(to: UInt8.self)) }
        terminal.write("\n")
        guard let password = try? terminal.readSecret(prompt: "Password (Enter uses the suggestion): ") else { return nil }
        return PromptedCredential(account: chosenAccount, password: password.byteCount == 0 ? suggestion : password)
    }
}

/// The login prompt when nobody can be asked: every request is canceled.
struct NoLoginPrompt: LoginPrompt {
    func credential(for server: ServerName, account: String?, suggestion: Secret, failedAttempts: Int) -> PromptedCredential? {
        nil
    }
}
