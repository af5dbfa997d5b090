import KeyshelfCredentials

/// `keyshelf get [SERVER] [ACCOUNT] --client APPID` (issue 18 item 2): the
/// gated release. A pending association of the asked domain (all of the
/// client's without SERVER) is checked again first, since the client asks
/// (the reference's schedule); then `Keyshelf.get(server:account:in:client:)`.
/// Runs on the vault opened here (with the unlocked agent's keys when there
/// is one), not as an agent operation, so the gate is this process's.
extension GetCommand {
    func run(for client: AppIdentifier, _ context: CommandContext) throws -> ExitCode {
        let account = serverArguments?.account
        let serverName = try serverArguments.map { try ServerArgument.parse($0.server) }
        let session = try VaultAccess.opener(options, context).session()
        defer { session.lock() }
        let shelf = try VaultAccess.shelf(session, yes: options.yes, context)
        let domain = serverName.flatMap { name in shelf.associations(of: client).first { $0.domain.covers(name) }?.domain }
        if serverName == nil || domain != nil {
            for checked in try shelf.retryPending(of: client, domain: domain, site: SiteVerifier()) {
                context.note("checked \(client.value) → \(checked.domain.key) again: \(checked.stateName)")
            }
        }
        let records = try shelf.get(server: serverName, account: account, in: options.scope, client: client)
        guard let record = records.first, let password = record.password else {
            throw CLIError(.failure, "the released password could not be read")
        }
        if options.json && serverName == nil {
            var writer = JSONWriter()
            writer.beginArray()
            for record in records { try RecordOutput.writeJSON(record, to: &writer) }
            writer.endArray()
            var bytes = writer.bytes + [0x0A]
            context.standardOutput.writeAndWipe(&bytes)
        } else {
            try output(password, of: record, context)
        }
        return .success
    }
}
