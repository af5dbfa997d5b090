/// The report line of a write the agent made, on standard error, as
/// KeyshelfCLI's `AddCommand.describe`, `RmCommand` and `EditCommand` write it through
/// `CommandContext.note` ("keyshelf: " and the line).
///
/// The request's names were checked to be ones `Line` prints
/// (`FastRequest`), and the facade saves or deletes only on the host asked
/// for (`ServerPattern.matches`), so the reply's server prints too; a reply
/// that does not fit (another host, an unknown outcome, bytes left over)
/// throws, and the full program sends the request again and reports what it
/// finds then.
enum WriteReport {
    /// `change`'s `ok` fields: the `server` saved for, then per store (local, shared) the outcome.
    /// - Throws: `HandBack.notPlainSuccess` for a reply that does not fit.
    static func change(_ reader: inout ReplyReader, host: String, account: String) throws(HandBack) {
        let server = try self.server(&reader, host: host)
        let outcomes = [try reader.byte(), try reader.byte()]
        guard reader.isAtEnd, outcomes.allSatisfy({ $0 <= 3 || $0 == 0xFF }) else { throw .notPlainSuccess }
        var what = Line()
        what.words("the password for ")
        try what.quoted(account)
        what.words(" on ")
        try what.server(host: server.host, port: server.port, scheme: server.scheme)
        /// The stores with `outcome`: nil, one store's name, or "both stores".
        func stores(_ outcome: UInt8) -> String? {
            switch (outcomes[0] == outcome, outcomes[1] == outcome) {
            case (true, true): "both stores"
            case (true, false): "the local store"
            case (false, true): "the shared credentials"
            case (false, false): nil
            }
        }
        let name = String(decoding: what.bytes, as: UTF8.self)
        var parts: [String] = []
        if let added = stores(0) { parts.append("saved \(name) in \(added)") }
        if let updated = stores(1) { parts.append("\(parts.isEmpty ? "updated \(name)" : "updated it") in \(updated)") }
        if let unchanged = stores(2) {
            parts.append(parts.isEmpty ? "\(name) was already saved in \(unchanged)" : "it was already saved in \(unchanged)")
        }
        note(parts.joined(separator: "; "))
    }

    /// `delete`'s `ok` fields: the `server` deleted on, then per store (local, shared) 1 deleted there, 0 not.
    /// - Throws: `HandBack.notPlainSuccess` for a reply that does not fit.
    static func deletion(_ reader: inout ReplyReader, host: String, account: String) throws(HandBack) {
        // `RmCommand.from`: with neither flag set it says the shared credentials too.
        try storeLine(&reader, host: host, account: account, lead: "deleted the password for ", needsAStore: false) { local, shared in
            local && shared ? " from both stores" : local ? " from the local store" : " from the shared credentials"
        }
    }

    /// `edit`'s `ok` fields: the `server` the item is at, then per store
    /// (local, shared) 1 when it is there afterwards, 0 not; reported as
    /// KeyshelfCLI's `EditCommand` does.
    /// - Throws: `HandBack.notPlainSuccess` for a reply that does not fit.
    static func edit(_ reader: inout ReplyReader, host: String, account: String) throws(HandBack) {
        try storeLine(&reader, host: host, account: account, lead: "changed ", needsAStore: true) { local, shared in
            local && shared ? ", now in both stores" : local ? ", now in the local store" : ", now in the shared credentials"
        }
    }

    /// Notes "LEAD 'ACCOUNT' on SERVER" and the ending the two store bytes
    /// (local, shared; each 0 or 1, at least one 1 when `needsAStore`) choose.
    private static func storeLine(_ reader: inout ReplyReader, host: String, account: String, lead: String, needsAStore: Bool,
                                  ending: (_ local: Bool, _ shared: Bool) -> String) throws(HandBack) {
        let server = try self.server(&reader, host: host)
        let local = try reader.byte(), shared = try reader.byte()
        guard reader.isAtEnd, local <= 1, shared <= 1, !needsAStore || local + shared > 0 else { throw .notPlainSuccess }
        var line = Line()
        line.words(lead)
        try line.quoted(account)
        line.words(" on ")
        try line.server(host: server.host, port: server.port, scheme: server.scheme)
        line.words(ending(local == 1, shared == 1))
        note(String(decoding: line.bytes, as: UTF8.self))
    }

    /// A `server` (`str` host, `u16` port, `str` scheme) on the request's host.
    private static func server(_ reader: inout ReplyReader, host: String) throws(HandBack) -> (host: String, port: UInt16, scheme: String) {
        let server = (host: try reader.string(), port: try reader.u16(), scheme: try reader.string())
        guard server.host == host, !server.scheme.isEmpty else { throw .notPlainSuccess }
        return server
    }

    /// "keyshelf: TEXT\n" in one write; `TEXT` is inert already.
    private static func note(_ text: String) {
        var line = "keyshelf: " + text + "\n"
        line.withUTF8 { bytes in
            ReplyPrinter.writeAll(raw: UnsafeMutableRawBufferPointer(mutating: UnsafeRawBufferPointer(bytes)), to: 2)
        }
    }
}
