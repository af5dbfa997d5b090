import Foundation
import KeyshelfCredentials
import KeyshelfCrypto

/// `keyshelf siwa key add KEY_ID --team-id TEAM [--label L] < AuthKey.p8`,
/// `siwa key list [--json]`, `siwa client-secret KEY_ID --client-id ID [--days N]`,
/// `siwa verify ID_TOKEN --jwks FILE --client-id ID [--nonce N] [--json]`
/// (docs/sign-in-with-apple.md).
struct SiwaCommand: Command {
    static let spec = CommandSpec(
        name: "siwa", summary: "Sign in with Apple for developers: keep .p8 keys, mint client secrets, verify identity tokens",
        positionals: [
            .init(name: "OPERATION", help: "key, client-secret or verify"),
            .init(name: "ARGUMENT", optional: true, help: "key: add or list; client-secret: KEY_ID; verify: ID_TOKEN"),
            .init(name: "KEY_ID", optional: true, help: "(key add) the key ID"),
        ],
        options: [
            .value("--team-id", valueName: "TEAM", help: "(key add) the Apple developer team ID"),
            .value("--label", valueName: "L", help: "(key add) a display name"),
            .value("--client-id", valueName: "ID", help: "(client-secret, verify) the service ID"),
            .value("--days", valueName: "N", help: "(client-secret) lifetime in days, 1 to 180 (default 180)"),
            .value("--jwks", valueName: "FILE", help: "(verify) Apple's public keys as a JWKS file"),
            .value("--nonce", valueName: "N", help: "(verify) the nonce the sign-in request carried"),
            .flag("--json", help: "(key list, verify) print JSON"),
        ],
        shared: [.vault, .passwordFD],
        usages: ["key add KEY_ID --team-id TEAM [--label L] [options] < AuthKey.p8", "key list [--json] [options]",
                 "client-secret KEY_ID --client-id ID [--days N] [options]",
                 "verify ID_TOKEN --jwks FILE --client-id ID [--nonce N] [--json]"],
        discussion: """
            key add reads the PKCS#8 P-256 private key (AuthKey_KEY_ID.p8) from standard input and keeps it
            in the local store; it is never printed. client-secret prints the ES256 client_secret JWT
            (iss team, aud https://appleid.apple.com, sub the client ID, kid the key ID).
            verify checks an identity token against the JWKS file (keyshelf fetches nothing): RS256
            signature, iss, aud, exp, iat and the nonce; it prints the subject, e-mail and whether the
            e-mail is a relay, or exits 1 naming the failing check. verify needs no vault.
            """)

    enum Operation { case keyAdd(String), keyList, clientSecret(String), verify(String) }

    var operation: Operation
    var arguments: ParsedArguments
    var options: SharedOptions

    init(_ arguments: ParsedArguments) throws(UsageError) {
        let words = arguments.positionals
        switch (words[0], words.count) {
        case ("key", 3) where words[1] == "add": operation = .keyAdd(words[2])
        case ("key", 2) where words[1] == "list": operation = .keyList
        case ("client-secret", 2): operation = .clientSecret(words[1])
        case ("verify", 2): operation = .verify(words[1])
        default:
            throw UsageError("usage: keyshelf siwa key add KEY_ID --team-id TEAM | key list | client-secret KEY_ID --client-id ID | verify ID_TOKEN --jwks FILE --client-id ID")
        }
        self.arguments = arguments
        options = try SharedOptions(arguments)
        let needed: [String] = switch operation {
        case .keyAdd: ["--team-id"]
        case .keyList: []
        case .clientSecret: ["--client-id"]
        case .verify: ["--jwks", "--client-id"]
        }
        if let missing = needed.first(where: { arguments.value($0) == nil }) { throw UsageError("\(missing) is required here") }
        let allowed: Set<String> = switch operation {
        case .keyAdd: ["--team-id", "--label"]
        case .keyList: ["--json"]
        case .clientSecret: ["--client-id", "--days"]
        case .verify: ["--jwks", "--client-id", "--nonce", "--json"]
        }
        let own = ["--team-id", "--label", "--client-id", "--days", "--jwks", "--nonce", "--json"]
        if let stray = own.first(where: { !allowed.contains($0) && (arguments.has($0) || arguments.value($0) != nil) }) {
            throw UsageError("\(stray) does not apply to siwa \(words[0])\(words[0] == "key" ? " " + words[1] : "")")
        }
    }

    func run(_ context: CommandContext) throws -> ExitCode {
        switch operation {
        case .verify(let token): return try verify(token, context)
        case .keyAdd(let keyID):
            // With --password-fd 0 the master password is the first line, the key the rest.
            let opener = try VaultAccess.opener(options, context, agent: true, readsMoreInput: true)
            let pem = try SecretInput.readToEnd(fd: 0, source: "standard input")
            guard pem.byteCount > 0 else {
                throw CLIError(.usage, "siwa key add: give the .p8 key on standard input (< AuthKey_\(keyID).p8); nothing was saved")
            }
            let session = try opener.session()
            defer { session.lock() }
            try VaultAccess.shelf(session, yes: false, context)
                .addAppleKey(keyID: keyID, teamID: arguments.value("--team-id")!, privateKeyPEM: pem, label: arguments.value("--label") ?? "")
            context.note("kept the Sign in with Apple key \(InertText.quoted(keyID)) in the local store")
        case .keyList:
            let session = try VaultAccess.opener(options, context).session()
            defer { session.lock() }
            let keys = try VaultAccess.shelf(session, yes: false, context).appleKeys()
            if arguments.has("--json") {
                var writer = JSONWriter()
                writer.beginArray()
                for key in keys {
                    writer.beginObject()
                    writer.field("keyID", key.keyID)
                    writer.field("teamID", key.teamID)
                    if !key.label.isEmpty { writer.field("label", key.label) }
                    writer.endObject()
                }
                writer.endArray()
                context.standardOutput.write(String(decoding: writer.bytes, as: UTF8.self) + "\n")
            } else {
                context.standardOutput.write(keys.map { [$0.keyID, $0.teamID, $0.label].map(InertText.make).joined(separator: "\t") + "\n" }.joined())
            }
        case .clientSecret(let keyID):
            var days = ClientSecret.maximumDays
            if let text = arguments.value("--days") {
                days = try ArgumentParser.integer(text, option: "--days", in: 1...ClientSecret.maximumDays)
            }
            let session = try VaultAccess.opener(options, context).session()
            defer { session.lock() }
            let secret = try VaultAccess.shelf(session, yes: false, context)
                .appleClientSecret(keyID: keyID, clientID: arguments.value("--client-id")!, days: days)
            context.standardOutput.write(secret + "\n")
        }
        return .success
    }

    private func verify(_ token: String, _ context: CommandContext) throws -> ExitCode {
        let path = arguments.value("--jwks")!
        guard let jwks = FileManager.default.contents(atPath: path), jwks.count <= 1 << 20 else {
            throw CLIError(.failure, "cannot read the JWKS file \(InertText.quoted(path)) (or it is larger than 1 MiB)")
        }
        let identity = try IdentityTokenVerifier(jwks: jwks, clientID: arguments.value("--client-id")!, nonce: arguments.value("--nonce"))
            .verify(token)
        if arguments.has("--json") {
            var writer = JSONWriter()
            writer.beginObject()
            writer.field("sub", identity.subject)
            if let email = identity.email { writer.field("email", email) }
            writer.field("relay", identity.isRelay)
            writer.field("exp", identity.expiresAt)
            writer.endObject()
            context.standardOutput.write(String(decoding: writer.bytes, as: UTF8.self) + "\n")
        } else {
            let email = identity.email.map { InertText.make($0) + (identity.isRelay ? " (relay)" : "") } ?? "(none)"
            context.standardOutput.write("sub\t\(InertText.make(identity.subject))\nemail\t\(email)\n")
        }
        return .success
    }
}
