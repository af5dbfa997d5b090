import Foundation
import KeyshelfCredentials
import KeyshelfCrypto
import KeyshelfVault

/// `get --history`: the password, then its earlier passwords (docs/sync.md,
/// "Password history"), one per line as `REPLACED<TAB>PASSWORD`, newest
/// first; `REPLACED` is an ISO 8601 UTC time. The history is released with
/// the password, under the same consent.
enum HistoryOutput {
    /// Gets the record through the facade over a session opened here (the
    /// agent's keys or the master password), so consent is asked as for
    /// `get`, then prints it with the history of the item it came from.
    static func run(server: ServerPattern, account: String?, options: SharedOptions, _ context: CommandContext) throws {
        let session = try VaultAccess.opener(options, context).session()
        defer { session.lock() }
        let record = try VaultAccess.shelf(session, yes: options.yes, context).get(server: server, account: account, in: options.scope)
        guard let password = record.password else {
            throw CLIError(.failure, "the password for \(InertText.quoted(record.account)) on \(record.server.qualified) could not be read")
        }
        let item = try session.contents()[record.store].first {
            !$0.isDeleted && $0.itemClass == .internetPassword && $0.account == record.account
                && $0.server == record.server.host && $0.port == record.server.port && $0.protocol == record.server.scheme
        }
        RecordOutput.printPassword(password, context)
        let formatter = ISO8601DateFormatter()
        for entry in item?.passwordHistory ?? [] {
            var bytes = Array((formatter.string(from: entry.replaced) + "\t").utf8) + entry.password.withUnsafeBytes { Array($0) } + [0x0A]
            context.standardOutput.writeAndWipe(&bytes)
        }
    }
}
