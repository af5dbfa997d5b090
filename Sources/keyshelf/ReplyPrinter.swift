import Glibc

/// Decodes an `ok` reply (docs/agent-protocol.md, "Replies") and prints it as
/// KeyshelfCLI's `RecordOutput` does: `get` the password and a newline;
/// `list` and `search` one "server<TAB>account<TAB>store" line per web login,
/// then one "service:NAME<TAB>account<TAB>store" line per generic password;
/// `add` and `rm` their report on standard error (`WriteReport`).
/// Nothing is printed unless the whole reply was read and understood.
enum ReplyPrinter {
    /// - Throws: `HandBack.notPlainSuccess` for any status but `ok`, or a reply
    ///   not read to its end exactly; `.outputNeedsFullProgram` for a record
    ///   without a password, nothing found, or a name `Line` cannot print
    ///   as the full program does.
    static func print(_ reply: UnsafeRawBufferPointer, for command: FastRequest.Command) throws(HandBack) {
        var reader = ReplyReader(reply)
        guard try reader.byte() == 2, try reader.byte() == 0 else { throw .notPlainSuccess }
        switch command {
        case let .change(server, account, _, _, _):
            return try WriteReport.change(&reader, host: server.host, account: account)
        case let .delete(server, account, _):
            return try WriteReport.deletion(&reader, host: server.host, account: account)
        case let .edit(server, account, _, newAccount, _, _, _):
            return try WriteReport.edit(&reader, host: server.host, account: newAccount ?? account)
        default:
            break
        }
        if case .get = command {
            try record(&reader, passwordWanted: true)
            guard reader.isAtEnd, let password = reader.password else { throw .outputNeedsFullProgram }
            // Password and newline in one write, straight from the locked reply buffer.
            var newline: UInt8 = 0x0A
            withUnsafeMutablePointer(to: &newline) { end in
                var pieces = [iovec(iov_base: UnsafeMutableRawPointer(mutating: password.baseAddress), iov_len: password.count),
                              iovec(iov_base: UnsafeMutableRawPointer(end), iov_len: 1)]
                writeAll(&pieces)
            }
            return
        }
        var lines = Line()
        // The lines are shorter than the records they print, unless control characters are escaped.
        lines.bytes.reserveCapacity(reply.count)
        let recordCount = try reader.count()
        for _ in 0..<recordCount { try lines.record(try record(&reader, passwordWanted: false)) }
        var generics = Line()
        if case .listServer = command {} else {
            for _ in 0..<(try reader.count()) { try generics.generic(try generic(&reader)) }
        }
        guard reader.isAtEnd else { throw .notPlainSuccess }
        // `list SERVER` and `search` fail when nothing matches: the full program says so.
        guard !lines.bytes.isEmpty || !generics.bytes.isEmpty else { throw .outputNeedsFullProgram }
        // Two writes, as the full program makes them (web logins, then generic passwords).
        lines.bytes.withUnsafeMutableBytes { writeAll(raw: $0) }
        generics.bytes.withUnsafeMutableBytes { writeAll(raw: $0) }
    }

    /// A web login as `record` (server, account, store, kind, [password]);
    /// its names stay in the reply buffer.
    @discardableResult
    private static func record(_ reader: inout ReplyReader, passwordWanted: Bool) throws(HandBack) -> Line.Record {
        let host = try reader.utf8(), port = try reader.u16(), scheme = try reader.utf8()
        guard !host.isEmpty, !scheme.isEmpty else { throw .notPlainSuccess }
        let account = try reader.utf8(), store = try reader.store()
        switch try reader.byte() {
        case 0, 2: break
        case 1: try reader.readPassword(keep: passwordWanted)
        default: throw .notPlainSuccess
        }
        return (host, port, scheme, account, store)
    }

    /// A generic password as `generic` (no password in it).
    private static func generic(_ reader: inout ReplyReader) throws(HandBack) -> (service: String, account: String, store: String) {
        guard ReplyReader.isUUID(try reader.string()) else { throw .notPlainSuccess }
        let service = try reader.string(), account = try reader.string(), store = try reader.store()
        _ = try reader.string()   // label
        _ = try reader.string()   // notes
        _ = try reader.u64()      // created
        _ = try reader.u64()      // modified
        guard try reader.byte() <= 1 else { throw .notPlainSuccess }   // access control: none, userPresence
        return (service, account, store)
    }

    static func writeAll(raw: UnsafeMutableRawBufferPointer, to fd: Int32 = 1) {
        var piece = [iovec(iov_base: raw.baseAddress, iov_len: raw.count)]
        writeAll(&piece, to: fd)
    }

    /// Writes every byte of `pieces` to `fd` (standard output unless told);
    /// a write error ends it silently, as the full program's output does.
    private static func writeAll(_ pieces: inout [iovec], to fd: Int32 = 1) {
        var first = 0
        while first < pieces.count {
            // `&pieces[first]` would pass a copy of that one element: take the array's own storage.
            let n = pieces.withUnsafeBufferPointer { writev(fd, $0.baseAddress! + first, Int32($0.count - first)) }
            if n < 0 && errno == EINTR { continue }
            guard n >= 0 else { return }
            var left = n
            while first < pieces.count && left >= pieces[first].iov_len {
                left -= pieces[first].iov_len
                first += 1
            }
            if first < pieces.count {
                pieces[first].iov_base += left
                pieces[first].iov_len -= left
            }
        }
    }
}

/// Output lines built as the full program builds them: `ServerName.qualified`
/// and `InertText.make`, for the names those leave as bytes this can check.
struct Line {
    var bytes: [UInt8] = []

    /// A web login read from a reply: its names are UTF-8 bytes inside the reply buffer.
    typealias Record = (host: UnsafeRawBufferPointer, port: UInt16, scheme: UnsafeRawBufferPointer,
                        account: UnsafeRawBufferPointer, store: String)

    /// "server<TAB>account<TAB>store\n"; the server carries `scheme://` unless
    /// https and `:port` unless the default (0). Appends to `bytes` only.
    /// - Throws: `HandBack.outputNeedsFullProgram` for an IPv6 host (printed in
    ///   brackets) or an IDNA one (`xn--`, printed in Unicode).
    mutating func record(_ record: Record) throws(HandBack) {
        try server(host: record.host, port: record.port, scheme: record.scheme)
        bytes.append(0x09)
        try escaped(record.account, quoting: false)
        bytes.append(0x09)
        bytes += record.store.utf8
        bytes.append(0x0A)
    }

    /// `ServerName.qualified`: `scheme://` unless https, the host, `:port` unless the default (0).
    /// - Throws: `HandBack.outputNeedsFullProgram` for an IPv6 host (printed in
    ///   brackets) or an IDNA one (`xn--`, printed in Unicode).
    mutating func server(host: String, port: UInt16, scheme: String) throws(HandBack) {
        try server(host: host.utf8, port: port, scheme: scheme.utf8)
    }

    /// `server(host:port:scheme:)` for the UTF-8 bytes of the names. The
    /// pieces are made inert one by one: what joins them (`://`, `:`, digits)
    /// is never escaped, so this is `InertText.make` of the whole name.
    mutating func server<Text: Collection<UInt8>>(host: Text, port: UInt16, scheme: Text) throws(HandBack) {
        guard !host.contains(0x3A), !Self.containsACEPrefix(host) else { throw .outputNeedsFullProgram }
        if !scheme.elementsEqual("https".utf8) {
            try escaped(scheme, quoting: false)
            bytes += "://".utf8
        }
        try escaped(host, quoting: false)
        if port != 0 {
            bytes.append(0x3A)
            bytes += String(port).utf8
        }
    }

    /// Plain ASCII text, as it is.
    mutating func words(_ text: String) {
        bytes += text.utf8
    }

    /// "service:NAME<TAB>account<TAB>store\n".
    mutating func generic(_ entry: (service: String, account: String, store: String)) throws(HandBack) {
        bytes += "service:".utf8
        try inert(entry.service)
        bytes.append(0x09)
        try inert(entry.account)
        bytes.append(0x09)
        bytes += entry.store.utf8
        bytes.append(0x0A)
    }

    /// `InertText.make` for ASCII text: a control character (below 0x20, or
    /// 0x7F) becomes `\u{HEX}` (upper-case hex), everything else stays. In
    /// ASCII only those are unsafe (`InertScalars.isUnsafe`; joiners,
    /// selectors and combining marks are not ASCII).
    /// - Throws: `HandBack.outputNeedsFullProgram` for text with non-ASCII
    ///   scalars, whose rules need Unicode properties.
    mutating func inert(_ text: String) throws(HandBack) {
        try escaped(text, quoting: false)
    }

    /// `InertText.quoted` for ASCII text: in double quotes, a quote or a
    /// backslash inside behind a backslash, control characters as in `inert`.
    /// (A note then makes its whole text inert again, which changes nothing here.)
    /// - Throws: as `inert`.
    mutating func quoted(_ text: String) throws(HandBack) {
        bytes.append(0x22)
        try escaped(text, quoting: true)
        bytes.append(0x22)
    }

    private mutating func escaped(_ text: String, quoting: Bool) throws(HandBack) {
        try escaped(text.utf8, quoting: quoting)
    }

    private mutating func escaped<Text: Collection<UInt8>>(_ text: Text, quoting: Bool) throws(HandBack) {
        for byte in text {
            guard byte < 0x80 else { throw .outputNeedsFullProgram }
            if quoting && (byte == 0x22 || byte == 0x5C) { bytes.append(0x5C) }
            if byte < 0x20 || byte == 0x7F {
                bytes += "\\u{".utf8
                bytes += String(byte, radix: 16, uppercase: true).utf8
                bytes.append(0x7D)
            } else {
                bytes.append(byte)
            }
        }
    }

    /// Whether `host` contains "xn--" (an IDNA label, which the full program prints in Unicode).
    static func containsACEPrefix(_ host: String) -> Bool {
        containsACEPrefix(host.utf8)
    }

    /// `containsACEPrefix` of UTF-8 bytes, in one pass without a copy.
    static func containsACEPrefix<Text: Collection<UInt8>>(_ host: Text) -> Bool {
        var matched = 0   // bytes of "xn--" seen just before
        for byte in host {
            let wanted: UInt8 = matched == 0 ? 0x78 : matched == 1 ? 0x6E : 0x2D
            if byte == wanted {
                matched += 1
                if matched == 4 { return true }
            } else {
                // "x" occurs once in "xn--": a mismatch restarts at this byte.
                matched = byte == 0x78 ? 1 : 0
            }
        }
        return false
    }
}
