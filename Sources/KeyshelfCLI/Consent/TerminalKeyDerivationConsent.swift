import KeyshelfVault

/// The CLI's answer to a vault's `KeyDerivationRequest` (Argon2id limits
/// above this machine's, docs/vault-format.md): the question on `/dev/tty`,
/// "Cancel" the default.
struct TerminalKeyDerivationConsent: KeyDerivationConsent {
    let terminal: Terminal

    func ask(_ request: KeyDerivationRequest) -> Bool {
        TerminalDialog.ask(on: terminal, title: request.title, message: request.message, buttons: request.buttons) == 1
    }

    /// The terminal asks; with none, higher limits are refused (`RefuseHigherLimits`, exit 7).
    /// `--yes` does not approve them: it answers the credential dialogs only.
    static func policy(_ context: CommandContext) -> any KeyDerivationConsent {
        context.terminal().map { TerminalKeyDerivationConsent(terminal: $0) } ?? RefuseHigherLimits()
    }
}
