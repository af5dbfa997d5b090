import Foundation
import KeyshelfCredentials
import KeyshelfCrypto

extension ShelfApp: UserPrompts {
    /// Runs a nested key loop over the browser until `handle` returns true.
    ///
    /// Resizes redraw; an idle lock or the end of input feeds `.escape` to
    /// `handle` (every modal treats it as cancel) and ends the loop.
    func runModal(overlay: () -> Void, handle: (Key) -> Bool) {
        while true {
            screen.clear()
            screen.setCursor(row: 0, column: 0, visible: false)
            if !drawTooSmallIfNeeded(screen) {
                drawBrowser()
                overlay()
            }
            screen.refresh()
            guard let key = nextKey() else {
                if lockRequested {
                    _ = handle(.escape)
                    return
                }
                continue
            }
            if key == .closed {
                _ = handle(.escape)
                quitRequested = true
                return
            }
            if key == .resize { continue }
            let size = screen.size
            if size.rows < minimumSize.rows || size.columns < minimumSize.columns { continue }
            if handle(key) { return }
        }
    }

    /// Shows `dialog` modally and returns what the user did.
    func present(_ dialog: Dialog) -> Dialog.Outcome {
        var dialog = dialog
        var outcome = Dialog.Outcome.declined
        runModal(overlay: { dialog.draw(on: screen) }) { key in
            guard let result = dialog.handle(key, size: screen.size) else { return false }
            outcome = result
            return true
        }
        return outcome
    }

    /// Answers a consent question from the domain layer with a dialog (DESIGN §5):
    /// safe button first with focus; Esc and `n` decline.
    public func ask(title: String, message: String, buttons: [String], destructive: Set<Int>) -> Int? {
        switch present(Dialog(title: title, message: message, buttons: buttons, destructive: destructive)) {
        case .activated(let i): return i == 0 ? nil : i
        case .declined: return nil
        }
    }

    /// Runs `form` until it is submitted and `submit` accepts it (returns nil), or it is canceled;
    /// Ctrl-G opens the generator dialog for the server `generatorServer` names
    /// (read when the key is pressed), whose *Use* fills the form's `generatorField`.
    /// `submit` returns an error message to show in the form, or nil when done.
    func run(_ form: Form, generatorServer: () -> String? = { nil }, submit: () -> String?) {
        runModal(overlay: { form.draw(on: screen) }) { key in
            switch form.handle(key) {
            case .cancel:
                return true
            case .generate:
                if let secretIndex = form.generatorField, let field = form.secretField(at: secretIndex),
                   let password = generateDialog(for: generatorServer()) {
                    field.set(password)
                    form.fields[secretIndex].error = nil
                    form.focus(on: secretIndex)
                }
                return false
            case .submit:
                if let message = submit() {
                    form.error = message
                    return false
                }
                return true
            case nil:
                return false
            }
        }
    }

    /// The generator dialog for `server` (its saved passwordrules, else
    /// `xxx-xxx-xxx-xxx`): shows a password and how it was made, `g` draws
    /// another, Use returns it. A rule that cannot be used is shown in the status line.
    func generateDialog(for server: String?) -> Secret? {
        func draw() -> (password: Secret, summary: String)? {
            do {
                return try shelf.generatePassword(for: server)
            } catch {
                setStatus("\(error)", error: true)
                return nil
            }
        }
        guard var generated = draw() else { return nil }
        func dialog() -> Dialog {
            Dialog(title: "Generated Password",
                   message: "\(generated.password.unsafeString() ?? "")\n\n\(generated.summary). g: another one",
                   buttons: ["Cancel", "Use"])
        }
        var current = dialog()
        var accepted = false
        runModal(overlay: { current.draw(on: screen) }) { key in
            if key == .character("g") {
                guard let next = draw() else { return true }
                generated = next
                let focus = current.focus
                current = dialog()
                while current.focus != focus { _ = current.handle(.tab) }
                return false
            }
            guard let outcome = current.handle(key) else { return false }
            accepted = outcome == .activated(1)
            return true
        }
        return accepted ? generated.password : nil
    }

    /// How many wrong master passwords the prompt takes before it gives up.
    static let masterPasswordTries = 3

    /// Asks the master password again (for userPresence items); nil when canceled.
    ///
    /// A wrong password (`verify` says no) clears the field and shows an error in
    /// the prompt, which stays open: Esc cancels. The `masterPasswordTries`-th wrong
    /// one is returned, so the caller's check reports `errSecAuthFailed`.
    /// - Parameters:
    ///   - reason: what it is for, from the domain layer ("copy the password for …"),
    ///     shown wrapped above the field.
    ///   - verify: whether a typed password is the master password.
    public func askMasterPassword(reason: String, verify: (Secret) -> Bool) -> Secret? {
        let field = SecretField()
        defer { field.clear() }
        let form = Form(title: "Master Password", message: "Type the master password to \(reason).",
                        fields: [Form.Field(label: "Password", input: .secret(field))])
        var typed: Secret?
        var wrongTries = 0
        run(form) {
            guard !field.isEmpty else { return "Type the master password, or Esc to cancel." }
            let attempt = field.secret()
            field.clear()
            if verify(attempt) { typed = attempt; return nil }
            wrongTries += 1
            if wrongTries >= Self.masterPasswordTries { typed = attempt; return nil }
            return "\(KeychainError.wrongMasterPassword); try again."
        }
        return typed
    }

    /// Login-flow step 3: a form for account and password, prefilled with the generated suggestion.
    public func askCredential(server: String, account: String?, suggestion: Secret, failedAttempts: Int) -> (account: String, password: Secret)? {
        let secret = SecretField()
        defer { secret.clear() }
        secret.set(suggestion)
        let form = Form(title: "Log in to \(server)", fields: [
            Form.Field(label: "Account", input: .text(TextField(account ?? ""))),
            Form.Field(label: "Password", input: .secret(secret), hint: "a generated password is filled in · Ctrl-U clears"),
        ], generatorField: 1)
        if failedAttempts > 0 { form.error = "The check refused that credential (\(failedAttempts)); try another." }
        var answer: (String, Secret)?
        run(form, generatorServer: { server }) {
            let name = form.text(at: 0)?.trimmingCharacters(in: .whitespaces) ?? ""
            form.fields[0].error = name.isEmpty ? "Enter the account (user name)" : nil
            form.fields[1].error = secret.isEmpty ? "Enter a password, or Ctrl-G to generate one" : nil
            if name.isEmpty || secret.isEmpty { return "Some fields need a value." }
            answer = (name, secret.secret())
            return nil
        }
        return answer.map { (account: $0.0, password: $0.1) }
    }

    /// The `?` dialog: every browser binding of `KeyMap` with its help text,
    /// Ctrl-Z, the keys of forms, and what the marks in the lists mean.
    func showHelp() {
        let keyColumns = 20
        func rows(_ rows: [(keys: String, help: String)]) -> [String] {
            rows.map { key, what in key + String(repeating: " ", count: max(1, keyColumns - TerminalText.columns(key))) + what }
        }
        let lines = rows(KeyMap.helpRows + KeyMap.screenHelpRows)
            + ["", "In forms"] + rows(Form.helpRows)
            + ["", "In the lists"] + rows(Self.markHelpRows)
        // Wide enough for every line; on a narrower screen descriptions wrap under their column.
        var dialog = Dialog(title: "Keys", message: lines.joined(separator: "\n"), buttons: ["Close"])
        dialog.width = (lines.map { TerminalText.columns($0) }.max() ?? 0) + 4
        dialog.hangingIndent = keyColumns
        _ = present(dialog)
    }

    func showDetailDialog() {
        guard let record = selectedRecord else { return }
        // Everything the detail pane shows, and more (issue 13 rule 5).
        var lines = ["Account:  \(record.account)"]
        switch record.domain {
        case .server(let server):
            lines += ["Server:   \(record.serverWithPort)", "Protocol: \(server.scheme), port \(server.effectivePort)"]
        case .service(let name):
            lines.append("Service:  \(name) (generic password)")
        }
        if !record.label.isEmpty { lines.append("Label:    \(record.label)") }
        lines += ["Store:    \(record.store == .local ? "local (this device only)" : "shared (synced)")",
                  "Created:  \(DateText.format(record.creationDate))", "Modified: \(DateText.format(record.modificationDate))"]
        if record.requiresUserPresence { lines.append("Access:   master password asked before reveal") }
        if !record.comment.isEmpty { lines.append("Notes:\n\(record.comment)") }
        _ = present(Dialog(title: record.account, message: lines.joined(separator: "\n"), buttons: ["Close"]))
    }
}
