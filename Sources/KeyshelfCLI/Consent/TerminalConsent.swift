import KeyshelfCredentials

/// The CLI's answer to consent requests (DESIGN §5): the dialog's title,
/// message and buttons on `/dev/tty`, the safe button as the default.
struct TerminalConsent: Consent {
    let terminal: Terminal

    func ask(_ request: ConsentRequest) -> ConsentAnswer {
        let index = TerminalDialog.ask(on: terminal, title: request.title, message: request.message, buttons: request.buttons)
        return request.answer(forButton: index)
    }

    /// The consent policy of one CLI run: `--yes` approves everything; else
    /// the terminal asks; with no terminal, every request is declined
    /// (`errSecUserCanceled`, exit 4) by the run's `UnattendedConsent`.
    static func policy(yes: Bool, _ context: CommandContext) -> any Consent {
        if yes { return ApproveAll() }
        if let terminal = context.terminal() { return TerminalConsent(terminal: terminal) }
        return context.unattendedConsent
    }
}
