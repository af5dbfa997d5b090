import Foundation
import KeyshelfAgent
import KeyshelfCredentials

/// `keyshelf __complete servers|accounts|themes [--vault DIR] [-- SERVER]`:
/// the names the completion scripts offer, one a line. Hidden (not in
/// `--help`), and it never asks anything: servers and accounts come only
/// from an unlocked agent (a locked vault answers nothing, exit 0), no
/// terminal is opened, no Argon2id runs, and nothing is written or cached.
/// Names holding a control character (a newline would split the list) are
/// left out; quoting for the shell is the script's job.
struct CompleteNamesCommand: Command {
    static let spec = CommandSpec(
        name: "__complete", summary: "names for shell completion (hidden)",
        positionals: [
            .init(name: "KIND", help: "servers, accounts or themes", completion: Completion.none),
            .init(name: "SERVER", optional: true, help: "the server whose accounts are listed (accounts)"),
        ],
        shared: [.vault])

    var kind: Completion.Names
    var server: String?
    var options: SharedOptions

    init(_ arguments: ParsedArguments) throws(UsageError) {
        guard let kind = Completion.Names(rawValue: arguments.positionals[0]) else {
            throw UsageError("__complete expects servers, accounts or themes")
        }
        self.kind = kind
        server = arguments.positionals.count > 1 ? arguments.positionals[1] : nil
        options = try SharedOptions(arguments)
    }

    func run(_ context: CommandContext) throws -> ExitCode {
        context.disableTerminal()
        let names: [String]
        switch kind {
        case .themes:
            names = context.terminalUI.themeNames(context.environment)
        case .servers:
            names = records(of: nil, context).map(\.server.qualified)
        case .accounts:
            guard let server, let serverName = try? ServerPattern(parsing: server) else { return .success }
            names = records(of: serverName, context).map(\.account)
        }
        var seen = Set<String>()
        var text = ""
        for name in names where !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            if seen.insert(name).inserted { text += name + "\n" }
        }
        context.standardOutput.write(text)
        return .success
    }

    /// The unlocked agent's listing, or nothing: a locked vault, no agent,
    /// or any trouble reads as "no names" (Tab must stay silent).
    private func records(of server: ServerPattern?, _ context: CommandContext) -> [CredentialRecord] {
        let directory = VaultAccess.directory(options, context)
        let result = try? AgentClient.perform(.list(server: server, filter: .both), for: directory,
                                              environment: context.environment,
                                              consent: context.unattendedConsent, approveAll: false)
        return result?.records.map(Array.init) ?? []
    }
}
