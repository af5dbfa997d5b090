import Foundation
import KeyshelfCredentials
import KeyshelfCrypto

/// `keyshelf otp SERVER [ACCOUNT] [--at UNIX_SECONDS] [--json | --clip]`,
/// `keyshelf otp set SERVER ACCOUNT` (secret on standard input) and
/// `keyshelf otp uri SERVER ACCOUNT` (docs/otp.md).
struct OtpCommand: Command {
    static let spec = CommandSpec(
        name: "otp", summary: "print a one-time code (TOTP/HOTP/Steam); otp set / otp uri manage the secret",
        positionals: [
            .init(name: "SERVER", help: "host name, host:port or URL; first the word set or uri for those forms",
                  completion: Completion.servers.or("set", "uri")),
            .init(name: "ACCOUNT", optional: true, help: "the user name; otp SERVER needs it only when the server has several"),
            // otp set / uri SERVER ACCOUNT: the third word, described by the two above.
            .init(name: "ACCOUNT", optional: true, help: "the user name", listed: false),
        ],
        options: [.value("--at", valueName: "UNIX_SECONDS", help: "the code at this time instead of now"),
                  .flag("--clip", "-c", help: "copy the code to the clipboard instead of printing it; cleared after 45 s ($KEYSHELF_CLIPBOARD_CLEAR)"),
                  .flag("--json", help: "print one JSON object: server, account, store, code, and for TOTP remaining and period")],
        shared: [.scope, .yes, .vault, .passwordFD],
        usages: ["SERVER [ACCOUNT] [--at UNIX_SECONDS] [--json | --clip] [options]",
                 "set SERVER ACCOUNT [options] < SECRET", "uri SERVER ACCOUNT [options]"],
        discussion: """
            otp SERVER [ACCOUNT] prints the current code; --json prints code, remaining
            (seconds until it changes) and period. Exit 3 when the account does not
            exist or has no secret. A HOTP code advances the saved counter (a write).
            otp set SERVER ACCOUNT reads an otpauth:// URI, a steam:// URI or a base32
            secret from the first line of standard input (never an argument); replacing
            another secret asks consent. otp uri SERVER ACCOUNT prints the secret as an
            otpauth:// URI, only with consent (--yes without a terminal).
            A shared account's code is released with consent, as its password is.
            --clip copies the code as get --clip copies a password; with fewer than 5 s left
            it waits for the next code and copies that one (with --at nothing waits: the
            next period's code is copied at once).
            """)

    enum Action { case code, set, uri }

    var action: Action
    var server: String
    var account: String?
    var time: Int64?
    var clip: Bool
    var options: SharedOptions

    init(_ arguments: ParsedArguments) throws(UsageError) {
        let words = arguments.positionals
        switch words[0] {
        case "set", "uri":
            guard words.count == 3 else { throw UsageError("otp \(words[0]) needs SERVER and ACCOUNT") }
            action = words[0] == "set" ? .set : .uri
            server = words[1]
            account = words[2]
        default:
            guard words.count <= 2 else { throw UsageError("otp takes SERVER [ACCOUNT]; did you mean otp set or otp uri?") }
            action = .code
            server = words[0]
            account = words.count > 1 ? words[1] : nil
        }
        if let at = arguments.value("--at") {
            guard action == .code else { throw UsageError("--at belongs to otp SERVER, not otp \(words[0])") }
            guard let seconds = Int64(at), seconds >= 0 else { throw UsageError("--at takes Unix seconds (0 or more), not '\(at)'") }
            time = seconds
        }
        options = try SharedOptions(arguments)
        clip = arguments.has("--clip")
        if clip && action != .code { throw UsageError("--clip belongs to otp SERVER, not otp \(words[0])") }
        if clip && options.json { throw UsageError("--clip and --json exclude each other") }
    }

    func run(_ context: CommandContext) throws -> ExitCode {
        let pattern = try ServerArgument.pattern(server)
        if let account { _ = try ServerArgument.account(account) }
        // With --password-fd 0 the master password is the first line and the secret the second.
        let opener = try VaultAccess.opener(options, context, readsMoreInput: action == .set)
        let secret = action == .set ? try readSecret() : nil
        let session = try opener.session()
        defer { session.lock() }
        let shelf = try VaultAccess.shelf(session, yes: options.yes, context)
        // Without a scheme: the one server the account is saved at (issue 13 rule 1).
        let serverName = try shelf.server(matching: pattern, account: account, in: options.scope) ?? pattern.newServer
        switch action {
        case .code where clip:
            let now = time ?? Int64(Date().timeIntervalSince1970)
            let (result, validFrom) = try shelf.oneTimeCodeToCopy(server: serverName, account: account, in: options.scope, at: now)
            let what = "the one-time code of \(InertText.quoted(result.account)) on \(result.server.display)"
            if validFrom > now {
                context.note("\(validFrom - now) s left for the current code: \(time == nil ? "waiting for" : "copying") the next one")
                if time == nil { Self.wait(untilUnixSecond: validFrom) }
            }
            try ClipboardOutput.copy(Secret(utf8: result.code.code), what: what, context)
        case .code:
            let now = time ?? Int64(Date().timeIntervalSince1970)
            let result = try shelf.oneTimeCode(server: serverName, account: account, in: options.scope, at: now)
            print(result, context)
        case .set:
            try shelf.setOneTimeSecret(secret!, server: serverName, account: account!, in: options.scope)
            context.note("saved the one-time-code secret of \(InertText.quoted(account!)) on \(serverName.qualified)")
        case .uri:
            let uri = try shelf.oneTimeURI(server: serverName, account: account!, in: options.scope)
            var bytes = Array((uri + "\n").utf8)
            context.standardOutput.writeAndWipe(&bytes)
        }
        return .success
    }

    /// Sleeps until the clock reaches `second` (Unix time), when the next code is valid.
    private static func wait(untilUnixSecond second: Int64) {
        var left = Double(second) - Date().timeIntervalSince1970
        while left > 0 {
            Thread.sleep(forTimeInterval: left)
            left = Double(second) - Date().timeIntervalSince1970
        }
    }

    /// The first line of standard input, parsed; the text is wiped after parsing.
    private func readSecret() throws -> OTPAuth {
        guard let line = try LineReader.readLine(fd: 0, source: "standard input"), line.byteCount > 0 else {
            throw CLIError(.usage, "otp set: give the otpauth:// URI or base32 secret on standard input; nothing was saved")
        }
        return try OTPAuth.parse(line.withUnsafeBytes { String(decoding: $0, as: UTF8.self) })
    }

    private func print(_ result: OneTimeCodeResult, _ context: CommandContext) {
        guard options.json else {
            context.standardOutput.write(result.code.code + "\n")
            return
        }
        var writer = JSONWriter()
        writer.beginObject()
        writer.field("server", result.server.displayHost)
        writer.field("account", result.account)
        writer.field("store", result.store.rawValue)
        writer.field("code", result.code.code)
        if let remaining = result.code.remaining { writer.field("remaining", remaining) }
        if let period = result.code.period { writer.field("period", period) }
        writer.endObject()
        context.standardOutput.write(String(decoding: writer.bytes, as: UTF8.self) + "\n")
    }
}
