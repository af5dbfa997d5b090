import KeyshelfCredentials
import KeyshelfVault

/// `keyshelf edit SERVER ACCOUNT [--label L] [--notes-stdin | --edit-notes]
/// [--account A] [--server S] [--move-to local|shared]` (and `--service NAME
/// ACCOUNT`): changes an item's metadata, never its password (issue 13 rule 5).
struct EditCommand: Command {
    static let spec = CommandSpec(
        name: "edit", summary: "change the label, notes, account, server or store of a saved password",
        positionals: [
            .init(name: "SERVER", help: "host name, host:port or URL (with --service: the ACCOUNT)"),
            .init(name: "ACCOUNT", optional: true, help: "the user name"),
        ],
        options: [
            ServerArgument.serviceOption,
            .value("--label", valueName: "L", help: "the new label (\"\" removes it)"),
            .flag("--notes-stdin", help: "the new notes: all of standard input (several lines)"),
            .flag("--edit-notes", help: "edit the notes in $EDITOR (a file in a private directory, wiped afterwards)"),
            .value("--account", valueName: "A", help: "rename the account"),
            .value("--server", valueName: "S", help: "move the item to another server (host, host:port or URL)"),
            .value("--move-to", valueName: "local|shared", help: "move the item to the local store or the shared credentials"),
        ],
        shared: [.scope, .yes, .vault, .passwordFD],
        usages: ServerArgument.usages(accountRequired: true),
        discussion: """
            Renaming or moving onto a password that is already saved replaces it, after consent
            (Update Saved Password?). An account held in both stores is edited in both; --local or
            --shared narrows that (and is needed to move one copy).
            """)

    var target: ServerArgument.Target
    var changes = MetadataChanges()
    var serverText: String?
    var notesFromStdin: Bool
    var editNotes: Bool
    var options: SharedOptions

    init(_ arguments: ParsedArguments) throws(UsageError) {
        target = try ServerArgument.target(arguments, accountRequired: true)
        changes.label = arguments.value("--label")
        changes.account = arguments.value("--account")
        serverText = arguments.value("--server")
        notesFromStdin = arguments.has("--notes-stdin")
        editNotes = arguments.has("--edit-notes")
        options = try SharedOptions(arguments)
        if notesFromStdin && editNotes { throw UsageError("--notes-stdin and --edit-notes exclude each other") }
        switch arguments.value("--move-to") {
        case nil: break
        case "local": changes.store = .local
        case "shared": changes.store = .shared
        case let other?: throw UsageError("--move-to takes local or shared, not \(InertText.quoted(other))")
        }
        if changes == MetadataChanges(), serverText == nil, !notesFromStdin, !editNotes {
            throw UsageError("nothing to change: give --label, --notes-stdin, --edit-notes, --account, --server or --move-to")
        }
    }

    func run(_ context: CommandContext) throws -> ExitCode {
        var changes = changes
        changes.server = try serverText.map(ServerArgument.parse)
        if notesFromStdin { changes.notes = try AddCommand.readNotes() }
        let opener = try VaultAccess.opener(options, context)
        // With --edit-notes the vault opened to read the notes (listings carry none) also takes the edit.
        try opener.keepingSession {
            switch target {
            case .service(let service, let account):
                let account = try ServerArgument.account(account ?? "")
                if editNotes {
                    let current = try opener.keptShelf(yes: options.yes).genericEntries(service: service).first { $0.account == account }?.comment
                    changes.notes = try NotesEditor.edit(current ?? "", context)
                }
                try opener.answer(.editGeneric(service: service, account: account, changes: changes), yes: options.yes, value: \.editedGeneric)
                context.note("changed \(InertText.quoted(account)) of service \(InertText.quoted(service))")
            case .server(let server, let account):
                let pattern = try ServerArgument.pattern(server)
                let account = try ServerArgument.account(account ?? "")
                if editNotes {
                    let current = try opener.keptShelf(yes: options.yes).accounts(of: pattern, in: options.scope).first { $0.account == account }?.comment
                    changes.notes = try NotesEditor.edit(current ?? "", context)
                }
                let operation = ShelfOperation.edit(server: pattern, account: account, filter: options.scope, changes: changes)
                let (place, stores) = try opener.answer(operation, yes: options.yes, value: \.edit)
                let name = changes.account ?? account
                context.note("changed \(InertText.quoted(name)) on \(place.qualified), now in \(stores.count == 2 ? "both stores" : RecordOutput.name(of: stores[0]))")
            }
        }
        return .success
    }
}
