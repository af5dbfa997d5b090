import KeyshelfCredentials
import KeyshelfCrypto

extension GetCommand {
    /// `get --service NAME [ACCOUNT]`: a generic password (issue 13 rule 4),
    /// from either store, never through the shared-web-credentials release.
    func runService(_ service: String, account: String?, _ context: CommandContext) throws -> ExitCode {
        if let account { _ = try ServerArgument.account(account) }
        let session = try VaultAccess.opener(options, context).session()
        defer { session.lock() }
        let (entry, password) = try VaultAccess.shelf(session, yes: options.yes, context).genericPassword(service: service, account: account)
        if clip {
            try ClipboardOutput.copy(password, what: "the password of \(InertText.quoted(entry.account)) of service \(InertText.quoted(service))", context)
        } else if options.json {
            try RecordOutput.printJSON(entry, password: password, context)
        } else {
            RecordOutput.printPassword(password, context)
        }
        return .success
    }
}
