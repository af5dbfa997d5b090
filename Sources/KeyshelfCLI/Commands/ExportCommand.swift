import Foundation
import KeyshelfTransfer
import KeyshelfVault

/// `keyshelf export FILE [--yes]`: writes every internet password as a
/// Chrome CSV (mode 0600), after a warning that the file is not encrypted
/// and the user's consent (docs/import.md).
struct ExportCommand: Command {
    static let spec = CommandSpec(
        name: "export", summary: "export passwords to an unencrypted Chrome CSV file",
        positionals: [.init(name: "FILE", help: "a new file (an existing one is never overwritten)")],
        shared: [.yes, .vault, .passwordFD],
        discussion: """
            Columns: name,url,username,password,note (Chrome's format, which most
            browsers and password managers import). The file is created with
            mode 0600 but is NOT encrypted. Asks before writing; --yes for scripts.
            One-time-password (otpauth) secrets have no column and are left out.
            Each server and account is written once: where both stores hold it,
            the local store's password (the one get and login use first); the
            number of shadowed items left out is reported. Passwords that are not
            UTF-8 text (saved by older versions) are left out and counted, as
            import could not read them back. Values are written exactly: the
            file is for a password manager; a spreadsheet can run a field
            starting with =, +, - or @ as a formula.
            """)

    var file: String
    var options: SharedOptions

    init(_ arguments: ParsedArguments) throws(UsageError) {
        file = arguments.positionals[0]
        options = try SharedOptions(arguments)
    }

    func run(_ context: CommandContext) throws -> ExitCode {
        if FileManager.default.fileExists(atPath: file) {
            throw TransferError.unwritable(path: file, reason: "the file already exists; choose a new name")
        }
        let session = try VaultAccess.unlock(options, context)
        defer { session.lock() }
        let contents = try session.contents()
        // Local first: where both stores hold an account, the local item is the one exported.
        let items = contents.local + contents.shared
        let count = ChromeExport.exportable(items).count
        guard count > 0 else {
            throw CLIError(.notFound, "no saved passwords to export; nothing was written")
        }
        context.note(ChromeExport.warning(path: file, count: count))
        if !options.yes {
            guard let terminal = context.terminal() else {
                context.unattendedConsent.recordDecline()
                throw CLIError(.canceled, "export declined, nothing was written")
            }
            guard TerminalDialog.ask(on: terminal, title: "Export Passwords Unencrypted?",
                                     message: "Write \(count) password(s) in plain text to \(file)?",
                                     buttons: ["Cancel", "Export"]) == 1
            else {
                throw CLIError(.canceled, "export declined, nothing was written")
            }
        }
        let summary = try ChromeExport.write(items, to: file)
        context.note("exported \(summary.written) password(s) to \(file) (mode 0600, not encrypted)")
        if summary.otpauthLeftOut > 0 {
            context.note("\(summary.otpauthLeftOut) one-time-password secret(s) have no column in this format and were not exported")
        }
        if summary.shadowed > 0 {
            context.note("\(summary.shadowed) saved password(s) shadowed by another item for the same server and account "
                + "(the local store's, as the login flow uses it first) were not exported")
        }
        if summary.unwritable > 0 {
            context.note("\(summary.unwritable) saved password(s) that are not UTF-8 text without NUL bytes were not exported "
                + "(import could not read them back); replace them with add")
        }
        if summary.notExportable > 0 {
            context.note("\(summary.notExportable) generic password(s) without a server were not exported")
        }
        return .success
    }
}
