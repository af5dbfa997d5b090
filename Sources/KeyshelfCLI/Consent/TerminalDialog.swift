import Foundation
import KeyshelfCredentials

/// A modal question on the terminal in the shape of the consent dialogs of
/// DESIGN §5: a title, a message and buttons, the safe button first and the
/// default. Typing Enter, `n`, Esc or Ctrl-D picks the safe button.
enum TerminalDialog {
    /// Shows the dialog on `terminal` and returns the index of the chosen button.
    /// - Parameters:
    ///   - buttons: labels; index 0 is the safe choice and the default.
    /// - Returns: the chosen index; 0 for the safe button or any unclear answer.
    static func ask(on terminal: Terminal, title: String, message: String, buttons: [String]) -> Int {
        precondition(!buttons.isEmpty, "a dialog needs buttons")
        var text = "\n" + InertText.make(title) + "\n" + InertText.make(message) + "\n"
        for (index, label) in buttons.enumerated() {
            text += "  \(index + 1)) \(InertText.make(label))" + (index == 0 ? "  (default)" : "") + "\n"
        }
        terminal.write(text)
        let answer: String?
        do {
            answer = try terminal.readLine(prompt: "Choice [1]: ")
        } catch {
            return 0
        }
        return choice(answer, buttons: buttons)
    }

    /// Interprets an answer: a button number, a unique label prefix, or "y"
    /// for a two-button dialog's second button. Anything else is the safe choice.
    static func choice(_ answer: String?, buttons: [String]) -> Int {
        guard let raw = answer?.trimmingCharacters(in: .whitespaces).lowercased(), !raw.isEmpty,
              !raw.hasPrefix("\u{1B}") else { return 0 }
        if let number = Int(raw), (1...buttons.count).contains(number) { return number - 1 }
        if buttons.count == 2 && (raw == "y" || raw == "yes") { return 1 }
        if raw == "n" || raw == "no" { return 0 }
        let matches = buttons.indices.filter { buttons[$0].lowercased().hasPrefix(raw) }
        return matches.count == 1 ? matches[0] : 0
    }
}
