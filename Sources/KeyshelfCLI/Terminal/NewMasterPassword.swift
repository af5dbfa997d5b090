import KeyshelfCredentials
import KeyshelfCrypto

/// Reads a new master password (`init`, `passwd`) with the advice of
/// `MasterPasswordPolicy`, the same rule the TUI's create form applies.
enum NewMasterPassword {
    /// What the terminal asks after a short password; Enter means no.
    static let question = "The password has fewer than \(MasterPasswordPolicy.recommendedMinimumCharacters) characters. "
        + MasterPasswordPolicy.shortWarning + " [y/N] "

    /// The warning a scripted short password gets on standard error (the command proceeds).
    static let scriptedWarning = "warning: the new master password has fewer than "
        + "\(MasterPasswordPolicy.recommendedMinimumCharacters) characters; short master passwords can be guessed"

    /// Reads the password twice from the terminal, or once from a scripted `source`.
    ///
    /// On the terminal a short password needs a "y" to be kept; any other
    /// answer asks for the password again. A scripted short password earns
    /// `scriptedWarning` through `warn` and is kept: a script cannot answer.
    /// - Throws: `CLIError` as `PasswordInput.read`; usage (2) when the
    ///   question gets end of input (Ctrl-D), nothing changed.
    static func read(from source: PasswordSource, terminal: () -> Terminal?, prompt: String,
                     confirmPrompt: String, kind: PasswordKind, warn: (String) -> Void) throws(CLIError) -> Secret {
        while true {
            let password = try PasswordInput.read(from: source, terminal: terminal, prompt: prompt,
                                                  confirmPrompt: confirmPrompt, allowEmpty: false, kind: kind)
            guard MasterPasswordPolicy.isShort(password) else { return password }
            guard !source.isScripted, let tty = terminal() else {
                warn(scriptedWarning)
                return password
            }
            guard let answer = try tty.readLine(prompt: question) else {
                throw CLIError(.usage, "no answer; nothing was changed")
            }
            if ["y", "yes"].contains(answer.filter { !$0.isWhitespace }.lowercased()) { return password }
        }
    }
}
