import Foundation
import KeyshelfCredentials
import KeyshelfVault

/// `keyshelf add SERVER ACCOUNT --sign-in-with-apple [--hidden-email]
/// [--forwarding-to ADDRESS] [--since YYYY-MM-DD] [--label L] [--local]`: an
/// account without a password that signs in with Apple (docs/sign-in-with-apple.md).
struct AppleAccountAdd: Sendable {
    /// The options `add` takes for it (listed in `AddCommand.spec`, which also has `--label`).
    static let options: [OptionSpec] = [
        .flag("--sign-in-with-apple", help: "the account signs in with Apple: saved without a password (docs/sign-in-with-apple.md)"),
        .flag("--hidden-email", help: "(with --sign-in-with-apple) the site got a Hide My Email address; implied by a …@privaterelay.appleid.com account"),
        .value("--forwarding-to", valueName: "ADDRESS", help: "(with --sign-in-with-apple) the real address the relay forwards to"),
        .value("--since", valueName: "YYYY-MM-DD", help: "(with --sign-in-with-apple) when the account was created; default today"),
    ]

    var hidesEmail: Bool?
    var forwardingAddress: String
    var since: Date?
    var label: String

    /// The Apple options of `arguments`; nil without `--sign-in-with-apple`.
    /// - Throws: `UsageError` for an Apple option without it, with `--generate` /
    ///   `--password-stdin`, or a malformed `--since` date.
    static func parse(_ arguments: ParsedArguments) throws(UsageError) -> AppleAccountAdd? {
        let appleOnly = ["--hidden-email", "--forwarding-to", "--since"]
        guard arguments.has("--sign-in-with-apple") else {
            if let used = appleOnly.first(where: { arguments.has($0) || arguments.value($0) != nil }) {
                throw UsageError("\(used) belongs to --sign-in-with-apple")
            }
            return nil
        }
        if arguments.has("--generate") || arguments.has("--password-stdin") {
            throw UsageError("a Sign in with Apple account has no password: --generate and --password-stdin do not apply")
        }
        let forwarding = arguments.value("--forwarding-to") ?? ""
        var since: Date?
        if let text = arguments.value("--since") {
            let format = DateFormatter()
            format.locale = Locale(identifier: "en_US_POSIX")
            format.timeZone = TimeZone(identifier: "UTC")
            format.dateFormat = "yyyy-MM-dd"
            guard let date = format.date(from: text), format.string(from: date) == text else {
                throw UsageError("--since takes a date as YYYY-MM-DD, not '\(text)'")
            }
            since = date
        }
        // A forwarding address says the e-mail was hidden.
        let hidden: Bool? = arguments.has("--hidden-email") || !forwarding.isEmpty ? true : nil
        return AppleAccountAdd(hidesEmail: hidden, forwardingAddress: forwarding, since: since, label: arguments.value("--label") ?? "")
    }

    /// Saves the account and says so on standard error.
    func run(server: ServerName, account: String, store: Store, opener: VaultOpener, yes: Bool, _ context: CommandContext) throws -> ExitCode {
        if !forwardingAddress.isEmpty { _ = try ServerArgument.account(forwardingAddress) }
        let session = try opener.session()
        defer { session.lock() }
        try VaultAccess.shelf(session, yes: yes, context).addAppleAccount(
            server: server, account: account, to: store, hidesEmail: hidesEmail, forwardingAddress: forwardingAddress,
            since: since, label: label)
        let relay = AppleSignIn.isRelayAddress(account) ? " (a Hide My Email relay address)" : ""
        context.note("saved \(InertText.quoted(account))\(relay) on \(server.qualified) as a Sign in with Apple account in \(RecordOutput.name(of: store))")
        return .success
    }
}
