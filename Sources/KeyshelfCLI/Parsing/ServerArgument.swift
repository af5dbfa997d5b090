import KeyshelfCredentials

/// Reads the SERVER and ACCOUNT arguments before anything is asked or opened,
/// so bad input fails fast with exit 2 and a message quoting it.
enum ServerArgument {
    /// Parses a host name, `host:port` or URL (DESIGN §1, §8).
    /// - Throws: `ServerNameError` (exit 2) quoting the input.
    static func parse(_ text: String) throws -> ServerName {
        try ServerName(parsing: text)
    }

    /// Parses a SERVER for a lookup: without a scheme it matches every
    /// protocol (issue 13 rule 1, docs/credentials.md).
    /// - Throws: `ServerNameError` (exit 2) quoting the input.
    static func pattern(_ text: String) throws -> ServerPattern {
        try ServerPattern(parsing: text)
    }

    /// What a command's positionals name: SERVER [ACCOUNT], or with
    /// `--service NAME` a generic password's [ACCOUNT] (issue 13 rule 4).
    enum Target {
        case server(String, account: String?)
        case service(String, account: String?)
    }

    /// Reads the positionals: SERVER then ACCOUNT, or ACCOUNT alone after `--service NAME`.
    /// - Throws: `UsageError` (exit 2) for a missing ACCOUNT (when `accountRequired`)
    ///   or SERVER, or a SERVER given with `--service`.
    static func target(_ arguments: ParsedArguments, accountRequired: Bool) throws(UsageError) -> Target {
        let positionals = arguments.positionals
        if let service = arguments.value("--service") {
            guard positionals.count <= 1 else {
                throw UsageError("with --service give only the ACCOUNT, not a SERVER (\(InertText.quoted(positionals[0])))")
            }
            guard !accountRequired || positionals.count == 1 else { throw UsageError("missing argument ACCOUNT after --service \(InertText.quoted(service))") }
            return .service(service, account: positionals.first)
        }
        guard let server = positionals.first else { throw UsageError("missing argument SERVER (or --service NAME)") }
        guard !accountRequired || positionals.count == 2 else { throw UsageError("missing argument ACCOUNT") }
        return .server(server, account: positionals.count > 1 ? positionals[1] : nil)
    }

    /// The usage lines of a command whose positionals `target` reads, one per
    /// form: the spec's ACCOUNT is optional only for the parser (`--service`
    /// takes it alone), so these say whether the command needs it.
    static func usages(accountRequired: Bool) -> [String] {
        let account = accountRequired ? "ACCOUNT" : "[ACCOUNT]"
        return ["SERVER \(account) [options]", "--service NAME \(account) [options]"]
    }

    /// The `--service NAME` option: a generic password's service.
    static let serviceOption = OptionSpec.value("--service", valueName: "NAME",
                                                help: "a generic password (API key, token, Wi-Fi) of this service instead of a SERVER")

    /// Checks that an ACCOUNT argument is not empty.
    /// - Throws: `UsageError` (exit 2).
    static func account(_ text: String) throws(UsageError) -> String {
        guard !text.isEmpty else { throw UsageError("the account is empty") }
        return text
    }
}
