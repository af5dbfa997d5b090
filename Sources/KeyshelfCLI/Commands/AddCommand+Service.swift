import Foundation
import KeyshelfCredentials
import KeyshelfCrypto

extension AddCommand {
    /// `add --service NAME ACCOUNT`: a generic password, local unless
    /// `--synchronizable` (issue 13 rule 4).
    func runService(_ service: String, account: String, _ context: CommandContext) throws -> ExitCode {
        let opener = try VaultAccess.opener(options, context, readsMoreInput: true)
        let session = try opener.session()
        defer { session.lock() }
        let shelf = try VaultAccess.shelf(session, yes: options.yes, context)
        let password = generate ? try shelf.generatePassword(for: nil) : try itemPassword(context)
        let notes = notesFromStdin ? try Self.readNotes() : nil
        let (outcome, store) = try shelf.addGeneric(service: service, account: account, password: password,
                                                    synchronizable: synchronizable, label: label, comment: notes)
        if generate { RecordOutput.printPassword(password, context) }
        let what = "the password for \(InertText.quoted(account)) of service \(InertText.quoted(service))"
        switch outcome {
        case .added: context.note("saved \(what) in \(RecordOutput.name(of: store))")
        case .updated: context.note("updated \(what) in \(RecordOutput.name(of: store))")
        case .unchanged, .deleted: context.note("\(what) was already saved in \(RecordOutput.name(of: store))")
        }
        return .success
    }

    /// The longest notes `--notes-stdin` reads, in bytes.
    static let maximumNotesByteCount = 64 << 10

    /// The rest of standard input as the notes (`--notes-stdin`), one trailing newline dropped.
    /// - Throws: `CLIError` (usage) for notes over 64 KiB or not UTF-8.
    static func readNotes() throws(CLIError) -> String {
        let data = FileHandle.standardInput.readDataToEndOfFile()
        guard data.count <= maximumNotesByteCount else {
            throw CLIError(.usage, "--notes-stdin: the notes are longer than 64 KiB; nothing was saved")
        }
        guard var text = String(data: data, encoding: .utf8) else {
            throw CLIError(.usage, "--notes-stdin: the notes are not UTF-8 text; nothing was saved")
        }
        if text.hasSuffix("\n") { text.removeLast() }
        return text
    }
}
