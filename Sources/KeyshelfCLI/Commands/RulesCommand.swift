import KeyshelfCredentials
import KeyshelfVault

/// `keyshelf rules set DOMAIN "passwordrules" | get DOMAIN | list | rm DOMAIN`:
/// the per-domain password rules saved in the vault (`SavedPasswordRules`),
/// which `add --generate`, the TUI generator and the login flow honour.
struct RulesCommand: Command {
    static let spec = CommandSpec(
        name: "rules", summary: "save, show or remove a domain's passwordrules for generated passwords",
        positionals: [
            .init(name: "OPERATION", help: "set, get, list or rm", completion: .words("set", "get", "list", "rm")),
            .init(name: "DOMAIN", optional: true, help: "host name, host:port or URL (set, get, rm)"),
            .init(name: "RULES", optional: true, help: "the passwordrules text (set), e.g. \"minlength: 12; required: digit\""),
        ],
        options: [.flag("--json", help: "get: one JSON object {domain, rules}; list: a JSON array of them")],
        shared: [.vault, .passwordFD],
        discussion: """
            set checks the rules first (as 'keyshelf generate --rules' does) and saves
            nothing when they are malformed or cannot be satisfied (exit 2).
            get prints the rules that apply to DOMAIN: its own, else those of a parent
            domain (login.example.com uses example.com's); exit 3 when none apply.
            list prints 'DOMAIN<TAB>RULES' lines. rm removes DOMAIN's own rules (exit 3 when none).
            With --json, get prints {"domain", "rules"} (domain: where the rules are saved)
            and list an array of such objects. Rules are kept in the local store (local.vault), never in the shared credentials.
            """)

    enum Operation: String { case set, get, list, rm }

    var operation: Operation
    var domain: String?
    var text: String?
    var options: SharedOptions
    var json: Bool

    init(_ arguments: ParsedArguments) throws(UsageError) {
        let words = arguments.positionals
        guard let operation = Operation(rawValue: words[0]) else {
            throw UsageError("unknown operation '\(words[0])'; use set, get, list or rm")
        }
        self.operation = operation
        domain = words.count > 1 ? words[1] : nil
        text = words.count > 2 ? words[2] : nil
        options = try SharedOptions(arguments)
        json = arguments.has("--json")
        let expected = switch operation {
        case .set: 3
        case .get, .rm: 2
        case .list: 1
        }
        guard words.count == expected else {
            let usage = switch operation {
            case .set: "rules set DOMAIN \"RULES\""
            case .get: "rules get DOMAIN"
            case .rm: "rules rm DOMAIN"
            case .list: "rules list"
            }
            throw UsageError("usage: keyshelf \(usage)")
        }
    }

    func run(_ context: CommandContext) throws -> ExitCode {
        let server = try domain.map(ServerArgument.parse)
        if operation == .set, let text {
            // Checked before the vault is opened: a mistake costs no master password.
            _ = try PasswordRecipe(rules: PasswordRules(parsing: text))
        }
        let session = try VaultAccess.opener(options, context).session()
        defer { session.lock() }
        let shelf = try VaultAccess.shelf(session, yes: false, context)
        switch (operation, server) {
        case (.set, let server?):
            let recipe = try shelf.setPasswordRules(text ?? "", for: server)
            context.note("saved password rules for \(SavedPasswordRules.key(for: server)) (\(recipe.length) characters per generated password)")
        case (.get, let server?):
            guard let entry = shelf.passwordRule(for: server) else {
                throw CLIError(.notFound, "no password rules apply to \(server.display); generated passwords use xxx-xxx-xxx-xxx")
            }
            if json {
                print([(domain: entry.domain, text: entry.text)], array: false, context)
                return .success
            }
            context.standardOutput.write(InertText.make(entry.text) + "\n")
            if entry.domain != SavedPasswordRules.key(for: server) { context.note("(saved for \(entry.domain))") }
        case (.rm, let server?):
            try shelf.removePasswordRules(for: server)
            context.note("removed the password rules for \(SavedPasswordRules.key(for: server))")
        default:
            if json {
                print(shelf.passwordRules().map { (domain: $0.domain, text: $0.text) }, array: true, context)
                return .success
            }
            for entry in shelf.passwordRules() {
                context.standardOutput.write("\(entry.domain)\t\(InertText.make(entry.text))\n")
            }
        }
        return .success
    }

    /// `{"domain", "rules"}` objects, one alone or as an array; names exact (JSON escaping only).
    private func print(_ entries: [(domain: String, text: String)], array: Bool, _ context: CommandContext) {
        var writer = JSONWriter()
        if array { writer.beginArray() }
        for entry in entries {
            writer.beginObject()
            writer.field("domain", entry.domain)
            writer.field("rules", entry.text)
            writer.endObject()
        }
        if array { writer.endArray() }
        context.standardOutput.write(String(decoding: writer.bytes, as: UTF8.self) + "\n")
    }
}
