import Foundation
import KeyshelfCredentials
import KeyshelfCrypto
import KeyshelfVault

/// Prints credentials: `--json` objects with the fields of DESIGN §3 plus
/// `store`, or tab-separated lines for people and `cut`. Names are made
/// inert; a password is written from its `Secret` and the buffer wiped.
enum RecordOutput {
    /// One record as a JSON object: `server` (Unicode display host, without
    /// the port), `account`, `password` (when present), `port` (only when
    /// not 443), `protocol` (the scheme: "https", "http", …), `store` ("local" / "shared"); a Sign in with Apple account
    /// adds `signInWith` ("apple"), and `relay` (true) when its account is a
    /// Hide My Email address.
    /// - Throws: `CLIError` (exit 1) when the password is not UTF-8 text,
    ///   which JSON cannot carry unchanged; nothing is printed then.
    static func writeJSON(_ record: CredentialRecord, to writer: inout JSONWriter) throws(CLIError) {
        writer.beginObject()
        writer.field("server", record.server.displayHost)
        writer.field("account", record.account)
        if let password = record.password {
            do {
                try writer.field("password", secret: password)
            } catch {
                throw CLIError(.failure, "the password for \(InertText.quoted(record.account)) on \(record.server.qualified) "
                    + "is not UTF-8 text and cannot be printed as JSON; get without --json prints its bytes, "
                    + "add replaces it")
            }
        }
        if let port = record.port { writer.field("port", port) }
        writer.field("protocol", record.server.scheme)
        writer.field("store", record.store.rawValue)
        if record.signInWith != .password {
            writer.field("signInWith", record.signInWith.rawValue)
            if AppleSignIn.isRelayAddress(record.account) { writer.field("relay", true) }
        }
        if let metadata = record.metadata {
            writer.field("label", metadata.label)
            writer.field("notes", metadata.notes)
            writer.field("created", timestamp(metadata.created))
            writer.field("modified", timestamp(metadata.modified))
        }
        writer.endObject()
    }

    /// Prints one record as a JSON object followed by a newline.
    /// - Throws: as `writeJSON`.
    static func printJSON(_ record: CredentialRecord, _ context: CommandContext) throws(CLIError) {
        var writer = JSONWriter()
        try writeJSON(record, to: &writer)
        var bytes = writer.bytes + [0x0A]
        context.standardOutput.writeAndWipe(&bytes)
    }

    /// Prints records (without passwords), then `generics` (`list`'s and
    /// `search`'s own group, without passwords), as one JSON array.
    static func printJSON(_ records: [CredentialRecord], generics: [GenericEntry] = [], _ context: CommandContext) throws(CLIError) {
        var writer = JSONWriter()
        writer.beginArray()
        for record in records { try writeJSON(record, to: &writer) }
        for entry in generics { try writeJSON(entry, password: nil, to: &writer) }
        writer.endArray()
        context.standardOutput.write(String(decoding: writer.bytes, as: UTF8.self) + "\n")
    }

    /// A generic password as a JSON object: `service`, `account`, `password`
    /// (when given), `store`, `label`, `notes`, `created`, `modified` (ISO 8601).
    /// - Throws: as `writeJSON` for a password that is not UTF-8 text.
    static func writeJSON(_ entry: GenericEntry, password: Secret?, to writer: inout JSONWriter) throws(CLIError) {
        writer.beginObject()
        writer.field("service", entry.service)
        writer.field("account", entry.account)
        if let password {
            do {
                try writer.field("password", secret: password)
            } catch {
                throw CLIError(.failure, "the password for \(InertText.quoted(entry.account)) of service \(InertText.quoted(entry.service)) is not UTF-8 text and cannot be printed as JSON")
            }
        }
        writer.field("store", entry.store.rawValue)
        writer.field("label", entry.label)
        writer.field("notes", entry.comment)
        writer.field("created", timestamp(entry.creationDate))
        writer.field("modified", timestamp(entry.modificationDate))
        writer.endObject()
    }

    /// Prints one generic password as a JSON object followed by a newline.
    static func printJSON(_ entry: GenericEntry, password: Secret, _ context: CommandContext) throws(CLIError) {
        var writer = JSONWriter()
        try writeJSON(entry, password: password, to: &writer)
        var bytes = writer.bytes + [0x0A]
        context.standardOutput.writeAndWipe(&bytes)
    }

    /// A date as ISO 8601 in UTC, seconds precision (`2026-12-02T06:14:00Z`).
    static func timestamp(_ date: Date) -> String {
        date.formatted(.iso8601)
    }

    /// Prints generic passwords as "service:NAME<TAB>account<TAB>store" lines,
    /// after the web logins (`list`'s and `search`'s own group; `get --service NAME ACCOUNT` reads one).
    static func printLines(_ entries: [GenericEntry], _ context: CommandContext) {
        var text = ""
        for entry in entries {
            text += "service:" + InertText.make(entry.service) + "\t" + InertText.make(entry.account) + "\t" + entry.store.rawValue + "\n"
        }
        context.standardOutput.write(text)
    }

    /// Prints records as "server<TAB>account<TAB>store" lines; the server
    /// carries its port when it is not the scheme's default and its scheme
    /// when it is not https (`ServerName.qualified`), so `get` accepts it back.
    static func printLines(_ records: [CredentialRecord], _ context: CommandContext) {
        var text = ""
        // Appended piece by piece: `a + b + …` would build a temporary string per `+`.
        for record in records {
            text += InertText.make(record.server.qualified)
            text += "\t"
            text += InertText.make(record.account)
            text += "\t"
            text += record.store.rawValue
            text += "\n"
        }
        context.standardOutput.write(text)
    }

    /// Prints a password alone on a line (`get`, `login`, `add --generate`).
    static func printPassword(_ password: Secret, _ context: CommandContext) {
        var bytes = password.withUnsafeBytes { Array($0) } + [0x0A]
        context.standardOutput.writeAndWipe(&bytes)
    }

    /// "the shared credentials" / "the local store", for messages.
    static func name(of store: Store) -> String {
        store == .local ? "the local store" : "the shared credentials"
    }
}
