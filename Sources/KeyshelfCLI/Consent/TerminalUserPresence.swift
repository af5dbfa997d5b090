import KeyshelfCredentials
import KeyshelfCrypto

/// Re-asks the master password on `/dev/tty` before a `userPresence` item's
/// secret is released (DESIGN §2).
struct TerminalUserPresence: UserPresencePrompt {
    let terminal: Terminal

    func askMasterPassword(reason: String) -> Secret? {
        terminal.write("The master password is needed to \(InertText.make(reason)).\n")
        return try? terminal.readSecret(prompt: "Master password: ")
    }
}
