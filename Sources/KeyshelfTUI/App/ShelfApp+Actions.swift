import Foundation
import KeyshelfClipboard
import KeyshelfCredentials
import KeyshelfCrypto
import KeyshelfVault

extension ShelfApp {
    /// The add form; `password` prefills the password (from the generator).
    func addCredential(password: Secret?) {
        let secret = SecretField()
        if let password { secret.set(password) }
        let server = selectedDomain?.title ?? ""
        let form = Form(title: "Add Credential", fields: [
            Form.Field(label: "Server", input: .text(TextField(server)), hint: "host, host:port or URL"),
            Form.Field(label: "Account", input: .text(TextField())),
            Form.Field(label: "Password", input: .secret(secret), hint: "Ctrl-G generates one"),
            Form.Field(label: "Store", input: .choice(["shared", "local"], selected: 0), hint: "Space switches"),
            Self.notesField(""),
        ], generatorField: 2)
        form.focus(on: server.isEmpty ? 0 : 1)
        run(form, generatorServer: { form.text(at: 0) }) {
            let server = form.text(at: 0)?.trimmingCharacters(in: .whitespaces) ?? ""
            let account = form.text(at: 1)?.trimmingCharacters(in: .whitespaces) ?? ""
            form.fields[0].error = server.isEmpty ? "Enter a server, e.g. example.com" : nil
            form.fields[1].error = account.isEmpty ? "Enter the account (user name)" : nil
            form.fields[2].error = secret.isEmpty ? "Enter a password, or Ctrl-G to generate one" : nil
            if let first = form.fields.firstIndex(where: { $0.error != nil }) {
                form.focus(on: first)
                return "Some fields need a value."
            }
            let store: Store = form.choice(at: 3) == 1 ? .local : .shared
            let saved: ServerName
            do {
                saved = try shelf.add(server: server, account: account, password: secret.secret(), store: store,
                                      comment: form.text(at: 4) ?? "", prompts: self)
            } catch {
                return "\(error)"
            }
            // Select what was saved: the one id that was not there before (none when an update).
            let before = Set(index.records.map(\.id))
            state.apply(.resetSearch)
            reload(selectingNewSince: before)
            // The server as the lists show it (normalised, Unicode), not as typed.
            setStatus("Saved \(account) for \(saved.qualified).")
            return nil
        }
        secret.clear()
    }

    func editCredential() {
        guard let record = selectedRecord else { return setStatus("Select an account to edit.", error: true) }
        let secret = SecretField()
        // A Sign in with Apple account has no password: no password field, no generator.
        let apple = record.signInWithApple != nil
        let passwordFields = apple ? [] : [
            Form.Field(label: "Password", input: .secret(secret), hint: "empty keeps the saved one · Ctrl-G generates"),
        ]
        let notesField = apple ? 1 : 2
        let form = Form(title: "Edit \(record.account) · \(record.serverWithPort)", fields: [
            Form.Field(label: "Account", input: .text(TextField(record.account))),
        ] + passwordFields + [
            Self.notesField(record.comment),
            Form.Field(label: "Label", input: .text(TextField(record.label))),
            Form.Field(label: "Server", input: .text(TextField(record.domain.server == nil ? "" : record.serverWithPort)),
                       hint: record.domain.server == nil ? "a generic password has no server" : "host, host:port or URL"),
            Form.Field(label: "Store", input: .choice(["shared", "local"], selected: record.store == .shared ? 0 : 1), hint: "Space switches"),
        ], generatorField: apple ? nil : 1)
        run(form, generatorServer: { record.serverWithPort }) {
            let account = form.text(at: 0)?.trimmingCharacters(in: .whitespaces) ?? ""
            form.fields[0].error = account.isEmpty ? "The account cannot be empty" : nil
            if account.isEmpty {
                form.focus(on: 0)
                return "Some fields need a value."
            }
            let comment = form.text(at: notesField) ?? ""
            let label = form.text(at: notesField + 1) ?? record.label, server = form.text(at: notesField + 2) ?? ""
            let store: Store = form.choice(at: notesField + 3) == 1 ? .local : .shared
            let changes = (label: label == record.label ? nil : label,
                           server: server == record.serverWithPort || server.isEmpty ? nil : server,
                           store: store == record.store ? nil : store)
            let othersChanged = account != record.account || comment != record.comment
                || changes.label != nil || changes.server != nil || changes.store != nil
            var passwordDeclined = false
            do {
                do {
                    try shelf.update(record, account: account, password: secret.isEmpty ? nil : secret.secret(),
                                     comment: comment, prompts: self)
                } catch is ConsentDeclined where !secret.isEmpty && othersChanged {
                    // "Not Now" refuses the new password only: the form's other edits are still what the user asked for.
                    passwordDeclined = true
                    try shelf.update(record, account: account, password: nil, comment: comment, prompts: self)
                }
                try shelf.editMetadata(record, account: account, label: changes.label, server: changes.server,
                                       store: changes.store, prompts: self)
            } catch let declined as ConsentDeclined {
                reload(select: record.id)
                setStatus(declined.description)
                return nil
            } catch {
                return "\(error)"
            }
            reload(select: record.id)
            setStatus(passwordDeclined ? "Updated \(account); kept the saved password (you declined the new one)." : "Updated \(account).")
            return nil
        }
        secret.clear()
    }

    func deleteCredential() {
        guard let record = selectedRecord else { return setStatus("Select an account to delete.", error: true) }
        do {
            try shelf.delete(record, prompts: self)
            state.apply(.hidePassword)
            reload()
            setStatus("Deleted \(record.account) from \(record.serverWithPort).")
        } catch let declined as ConsentDeclined {
            setStatus(declined.description)
        } catch {
            setStatus("\(error)", error: true)
        }
    }

    func copyPassword() {
        guard let record = selectedRecord else { return setStatus("Select an account first.", error: true) }
        do {
            let password = try shelf.password(of: record, for: .copy, prompts: self)
            let report = clipboard.copy(password, now: now())
            setStatus(report.message("the password of \(record.account)"), error: !report.copied)
        } catch {
            setStatus("Not copied: \(error)", error: true)
        }
    }

    func copyAccount() {
        guard let record = selectedRecord else { return setStatus("Select an account first.", error: true) }
        let report = clipboard.copy(Secret(utf8: record.account), now: now())
        setStatus(report.message("the account \(record.account)"), error: !report.copied)
    }

    /// The status line while a password is shown; hiding it clears the line.
    static let revealedStatus = "Shown until you move or press r again."

    func reveal() {
        guard let record = selectedRecord else { return setStatus("Select an account first.", error: true) }
        if state.revealed?.id == record.id {
            state.apply(.hidePassword)
            if state.status == Self.revealedStatus { setStatus("") }
            return
        }
        do {
            let password = try shelf.password(of: record, for: .show, prompts: self)
            state.apply(.reveal(record.id, password))
            setStatus(Self.revealedStatus)
        } catch {
            setStatus("\(error)", error: true)
        }
    }

    func runLogin() {
        guard let domain = selectedDomain else { return setStatus("Select a domain first.", error: true) }
        guard let server = domain.id.server else { return setStatus("The login flow is for web domains.", error: true) }
        do {
            // The domain's own server, scheme included: its title is never parsed again (an http domain stays http).
            if let record = try shelf.login(server: server, prompts: self) {
                reload(select: record.id)
                state.apply(.focus(.accounts))
                setStatus(record.signInWithApple != nil
                    ? "Login for \(domain.title): \(record.account) signs in with Apple (no password)."
                    : "Login for \(domain.title): use \(record.account) (c copies the password).")
            } else {
                setStatus("No credential chosen for \(domain.title).")
            }
        } catch let declined as ConsentDeclined {
            setStatus(declined.description)
        } catch {
            setStatus("\(error)", error: true)
        }
    }
}

extension ShelfApp {
    /// The notes field of the add and edit forms: several lines, Enter adds one, Ctrl-S saves.
    static func notesField(_ notes: String) -> Form.Field {
        var field = Form.Field(label: "Notes", input: .text(TextField(notes)), hint: "Enter adds a line · Ctrl-S saves")
        field.multiline = true
        return field
    }
}
