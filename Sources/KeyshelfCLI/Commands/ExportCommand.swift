import Foundation
import KeyshelfCredentials
import KeyshelfTransfer
import KeyshelfVault

/// `keyshelf export FILE|- [--format chrome|bitwarden|bitwarden-json] [--yes]`:
/// writes every internet password as Chrome CSV, Bitwarden CSV or Bitwarden
/// JSON (a new file, mode 0600, or standard output for `-`), after a warning
/// that the output is not encrypted and the user's consent (docs/import.md).
struct ExportCommand: Command {
    static let spec = CommandSpec(
        name: "export", summary: "export passwords to an unencrypted Chrome CSV, Bitwarden CSV or Bitwarden JSON file",
        positionals: [.init(name: "FILE", help: "a new file (an existing one is never overwritten), or - for standard output")],
        options: [
            .value("--format", valueName: "FORMAT",
                   help: "chrome (default: name,url,username,password,note), bitwarden (CSV with folder and login_totp) "
                       + "or bitwarden-json (Bitwarden's unencrypted JSON: folders, notes, TOTP, dates)"),
        ],
        shared: [.yes, .vault, .passwordFD],
        discussion: """
            The file is created with mode 0600 but is NOT encrypted. Asks before
            writing; --yes for scripts. Chrome's format has no column for
            one-time-password (otpauth) secrets, which are then left out and
            counted; both Bitwarden formats carry them, and folders from labels
            of the form FOLDER/TITLE.
            Each server and account is written once: where both stores hold it,
            the local store's password (the one get and login use first); the
            number of shadowed items left out is reported. Passwords that are not
            UTF-8 text (saved by older versions) are left out and counted, as
            import could not read them back. Values are written exactly: the
            file is for a password manager; a spreadsheet can run a field
            starting with =, +, - or @ as a formula.
            """)

    var destination: ExportDestination
    var format: ExportFormat
    var options: SharedOptions

    init(_ arguments: ParsedArguments) throws(UsageError) {
        destination = ExportDestination(argument: arguments.positionals[0])
        options = try SharedOptions(arguments)
        format = .chrome
        if let text = arguments.value("--format") {
            guard let chosen = ExportFormat(rawValue: text) else {
                throw UsageError("--format expects \(ExportFormat.allCases.map(\.rawValue).joined(separator: ", ")), not '\(text)'")
            }
            format = chosen
        }
    }

    func run(_ context: CommandContext) throws -> ExitCode {
        if case .file(let file) = destination, FileManager.default.fileExists(atPath: file) {
            throw TransferError.unwritable(path: file, reason: "the file already exists; choose a new name")
        }
        // The unlocked agent's items, else the vault's opened here; local first: where
        // both stores hold an account, the local item is the one exported.
        let items = try VaultAccess.opener(options, context).answer(.export, yes: options.yes, value: \.exported)
        let count = PasswordExport.exportable(items, format: format).count
        guard count > 0 else {
            throw CLIError(.notFound, "no saved passwords to export; nothing was written")
        }
        let name = destination.name
        context.note(PasswordExport.warning(path: name, count: count))
        if !options.yes {
            guard let terminal = context.terminal() else {
                context.unattendedConsent.recordDecline()
                throw CLIError(.canceled, "export declined, nothing was written")
            }
            guard TerminalDialog.ask(on: terminal, title: "Export Passwords Unencrypted?",
                                     message: "Write \(count) password(s) in plain text to \(name)?",
                                     buttons: ["Cancel", "Export"]) == 1
            else {
                throw CLIError(.canceled, "export declined, nothing was written")
            }
        }
        let summary = try PasswordExport.write(items, to: destination, format: format)
        let where_ = destination == .standardOutput ? "standard output" : "\(name) (mode 0600, not encrypted)"
        context.note("exported \(summary.written) password(s) as \(format.displayName) to \(where_)")
        if summary.otpauthLeftOut > 0 {
            context.note("\(summary.otpauthLeftOut) one-time-password secret(s) have no column in this format and were not exported "
                + "(--format bitwarden or bitwarden-json carries them)")
        }
        if summary.shadowed > 0 {
            context.note("\(summary.shadowed) saved password(s) shadowed by another item for the same server and account "
                + "(the local store's, as the login flow uses it first) were not exported")
        }
        if summary.unwritable > 0 {
            context.note("\(summary.unwritable) saved password(s) that are not UTF-8 text without NUL bytes were not exported "
                + "(import could not read them back); replace them with add")
        }
        if summary.appLoginsLeftOut > 0 {
            context.note("\(summary.appLoginsLeftOut) Android app login(s) have no place in Chrome's format and were not exported "
                + "(--format bitwarden or bitwarden-json carries them)")
        }
        if summary.notExportable > 0 {
            context.note("\(summary.notExportable) generic password(s) without a server were not exported")
        }
        return .success
    }
}
