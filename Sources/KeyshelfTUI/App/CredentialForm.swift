import Foundation
import KeyshelfVault

/// The add and edit forms' fields, built in one place so both have the same
/// fields in the same order (docs/tui.md): Server, Account, Password (none
/// for a Sign in with Apple account), Label, Store, Notes. Notes come last:
/// Enter adds a line there, so it is the field where only Ctrl-S saves.
struct CredentialForm {
    let form: Form
    /// The password field's index; nil when the form has none.
    let password: Int?

    static let server = 0
    static let account = 1
    var label: Int { (password ?? Self.account) + 1 }
    var store: Int { label + 1 }
    var notes: Int { label + 2 }

    /// - Parameters:
    ///   - secret: the password field's storage; nil for a form without a password (a Sign in with Apple account).
    ///   - serverHint, passwordHint: shown under the focused field; each fits the form at 80 columns.
    init(title: String, server: String, serverHint: String, account: String, secret: SecretField?, passwordHint: String,
         label: String, store: Store, notes: String) {
        var fields = [
            Form.Field(label: "Server", input: .text(TextField(server)), hint: serverHint),
            Form.Field(label: "Account", input: .text(TextField(account))),
        ]
        if let secret {
            password = fields.count
            fields.append(Form.Field(label: "Password", input: .secret(secret), hint: passwordHint))
        } else {
            password = nil
        }
        fields += [
            Form.Field(label: "Label", input: .text(TextField(label)), hint: "a name shown in the detail; optional"),
            Form.Field(label: "Store", input: .choice(["shared", "local"], selected: store == .shared ? 0 : 1), hint: "Space switches"),
            Self.notesField(notes),
        ]
        form = Form(title: title, fields: fields, generatorField: password)
    }

    /// The account typed, without surrounding blanks.
    var accountText: String { form.text(at: Self.account)?.trimmingCharacters(in: .whitespaces) ?? "" }
    /// The server typed, without surrounding blanks.
    var serverText: String { form.text(at: Self.server)?.trimmingCharacters(in: .whitespaces) ?? "" }
    var labelText: String { form.text(at: label) ?? "" }
    var notesText: String { form.text(at: notes) ?? "" }
    var chosenStore: Store { form.choice(at: store) == 1 ? .local : .shared }

    /// The notes field: several lines, Enter adds one, Ctrl-S saves.
    static func notesField(_ notes: String) -> Form.Field {
        var field = Form.Field(label: "Notes", input: .text(TextField(notes)), hint: "Enter adds a line · Ctrl-S saves")
        field.multiline = true
        return field
    }
}
