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
        let fields = CredentialForm(title: "Add Credential", server: server, serverHint: "host, host:port or URL", account: "",
                                    secret: secret, passwordHint: "Ctrl-G generates one", label: "", store: .shared, notes: "")
        let form = fields.form
        form.focus(on: server.isEmpty ? CredentialForm.server : CredentialForm.account)
        run(form, generatorServer: { form.text(at: CredentialForm.server) }) {
            let server = fields.serverText, account = fields.accountText
            form.fields[CredentialForm.server].error = server.isEmpty ? "Enter a server, e.g. example.com" : nil
            form.fields[CredentialForm.account].error = account.isEmpty ? "Enter the account (user name)" : nil
            if let index = fields.password {
                form.fields[index].error = secret.isEmpty ? "Enter a password, or Ctrl-G to generate one" : nil
            }
            if let first = form.fields.firstIndex(where: { $0.error != nil }) {
                form.focus(on: first)
                return "Some fields need a value."
            }
            let saved: ServerName
            do {
                saved = try shelf.add(server: server, account: account, password: secret.secret(), store: fields.chosenStore,
                                      label: fields.labelText, comment: fields.notesText, prompts: self)
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
        let generic = record.domain.server == nil
        // A Sign in with Apple account has no password: no password field, no generator.
        let fields = CredentialForm(
            title: "Edit \(record.account) · \(record.serverWithPort)",
            server: generic ? "" : record.serverWithPort,
            serverHint: generic ? "a generic password has no server" : "host, host:port or URL",
            account: record.account, secret: record.signInWithApple == nil ? secret : nil,
            passwordHint: "empty keeps the saved one · Ctrl-G generates",
            label: record.label, store: record.store, notes: record.comment)
        let form = fields.form
        form.focus(on: CredentialForm.account)
        run(form, generatorServer: { record.serverWithPort }) {
            let account = fields.accountText
            form.fields[CredentialForm.account].error = account.isEmpty ? "The account cannot be empty" : nil
            if account.isEmpty {
                form.focus(on: CredentialForm.account)
                return "Some fields need a value."
            }
            let comment = fields.notesText, label = fields.labelText, server = fields.serverText, store = fields.chosenStore
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
            showCopy(clipboard.copy(password, now: now()), of: "the password of \(record.account)")
        } catch {
            setStatus("Not copied: \(error)", error: true)
        }
    }

    func copyAccount() {
        guard let record = selectedRecord else { return setStatus("Select an account first.", error: true) }
        showCopy(clipboard.copy(Secret(utf8: record.account), now: now()), of: "the account \(record.account)")
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
