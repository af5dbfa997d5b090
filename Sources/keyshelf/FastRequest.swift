/// The command lines the thin client answers itself, and the agent request
/// each one becomes (docs/agent-protocol.md, "Requests"). Every other form
/// throws `HandBack.unservedArguments`, so the full program parses it.
///
/// Served, with `--vault DIR` / `--vault=DIR` before the command or anywhere after it:
/// - `get SERVER [ACCOUNT] [--yes | -y] [--local | --shared]`
/// - `list [SERVER] [--local | --shared]`
/// - `search QUERY`
/// - `add SERVER ACCOUNT --password-stdin [--yes | -y] [--local | --shared]`
/// - `rm SERVER ACCOUNT (--yes | -y) [--local | --shared]` (without `--yes`
///   the agent always asks for consent, which the full program puts to the user)
/// - `edit SERVER ACCOUNT` with one or more of `--label L`, `--account A`,
///   `--move-to local|shared` (each once, as `--label L` or `--label=L`),
///   `[--yes | -y] [--local | --shared]` (the agent's `edit`; a consent it
///   asks for goes to the full program)
///
/// For `add`, `rm` and `edit` the ACCOUNT (and a new one) and the SERVER's host must be ASCII (the
/// host without an IDNA label): the report printed after the write is then
/// one the thin client prints exactly as the full program (`Line`).
///
/// Option handling follows KeyshelfCLI's `ArgumentParser`: a word not starting
/// with `-` (or `-` itself) is a positional, a flag may repeat, `--vault`
/// takes the next word whatever it is. Anything else (`--`, `--help`, `--json`,
/// `--password-fd`, `--no-agent`, an empty argument, a second `--vault`, …)
/// goes to the full program.
struct FastRequest {
    enum Command {
        /// `get`: SERVER split into the wire's pattern fields, ACCOUNT, `--yes`, the store filter.
        case get(ServerPattern, account: String?, yes: Bool, filter: UInt8)
        /// `list SERVER`.
        case listServer(ServerPattern, filter: UInt8)
        /// `list`: every web login, then the generic passwords (sent as `search ""`).
        case listEverything(filter: UInt8)
        /// `search QUERY`.
        case search(String)
        /// `add SERVER ACCOUNT --password-stdin` (the agent's `change`); `newItems`: 0 local, 1 shared.
        case change(ServerPattern, account: String, yes: Bool, filter: UInt8, newItems: UInt8)
        /// `rm SERVER ACCOUNT --yes` (the agent's `delete`).
        case delete(ServerPattern, account: String, filter: UInt8)
        /// `edit SERVER ACCOUNT` (the agent's `edit`); `moveTo`: 0 local, 1 shared, 2 stays.
        case edit(ServerPattern, account: String, label: String?, newAccount: String?, moveTo: UInt8, yes: Bool, filter: UInt8)
    }

    let command: Command
    /// `--vault DIR` when given (not empty).
    let vault: String?

    /// The flags each served command takes (`-y` counts as `--yes`).
    private static let flags: [String: Set<String>] = [
        "get": ["--yes", "--local", "--shared"], "list": ["--local", "--shared"], "search": [],
        "add": ["--password-stdin", "--yes", "--local", "--shared"], "rm": ["--yes", "--local", "--shared"],
        "edit": ["--yes", "--local", "--shared"],
    ]
    /// The options that take a value (`--opt V` or `--opt=V`): `--vault`
    /// anywhere, and those of `edit` the thin client serves.
    private static let valueOptions: Set<String> = ["--vault"]
    private static let editValueOptions = valueOptions.union(["--label", "--account", "--move-to"])

    /// - Parameter arguments: the command line without the program name.
    /// - Throws: `HandBack.unservedArguments`.
    init(arguments: [String]) throws(HandBack) {
        var words: [String] = []
        var flags: Set<String> = []
        var values: [String: String] = [:]
        var commandWord: String?
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if let name = (commandWord == "edit" ? Self.editValueOptions : Self.valueOptions)
                .first(where: { argument == $0 || argument.hasPrefix($0 + "=") }) {
                // Given twice is the full program's usage error.
                guard values[name] == nil else { throw .unservedArguments }
                if argument == name {
                    guard index < arguments.count else { throw .unservedArguments }
                    values[name] = arguments[index]
                    index += 1
                } else {
                    values[name] = String(argument.dropFirst(name.count + 1))
                }
            } else if argument == "-" || !argument.hasPrefix("-") {
                guard !argument.isEmpty else { throw .unservedArguments }
                if commandWord == nil { commandWord = argument } else { words.append(argument) }
            } else {
                // A flag before the command word is the full program's (`--version`, `--help`, `--password-fd`, …).
                guard let commandWord, let allowed = Self.flags[commandWord],
                      allowed.contains(argument == "-y" ? "--yes" : argument) else { throw .unservedArguments }
                flags.insert(argument == "-y" ? "--yes" : argument)
            }
        }
        guard !flags.isSuperset(of: ["--local", "--shared"]) else { throw .unservedArguments }
        let filter: UInt8 = flags.contains("--local") ? 1 : flags.contains("--shared") ? 2 : 0
        let yes = flags.contains("--yes")
        switch commandWord {
        case "get" where (1...2).contains(words.count):
            command = .get(try ServerPattern(words[0]), account: words.count == 2 ? words[1] : nil, yes: yes, filter: filter)
        case "list" where words.count <= 1:
            if let server = words.first {
                command = .listServer(try ServerPattern(server), filter: filter)
            } else {
                command = .listEverything(filter: filter)
            }
        case "search" where words.count == 1:
            command = .search(words[0])
        case "add" where words.count == 2 && flags.contains("--password-stdin"):
            let server = try Self.reportable(try ServerPattern(words[0]), account: words[1])
            command = .change(server, account: words[1], yes: yes, filter: filter, newItems: filter == 1 ? 0 : 1)
        case "rm" where words.count == 2 && yes:
            command = .delete(try Self.reportable(try ServerPattern(words[0]), account: words[1]), account: words[1], filter: filter)
        case "edit" where words.count == 2 && !values.isEmpty:
            let newAccount = values["--account"]
            // An empty new account is the full program's error; the report names the new account.
            if let newAccount {
                guard !newAccount.isEmpty else { throw .unservedArguments }
                _ = try Self.reportable(try ServerPattern(words[0]), account: newAccount)
            }
            let moveTo: UInt8
            switch values["--move-to"] {
            case nil: moveTo = 2
            case "local": moveTo = 0
            case "shared": moveTo = 1
            default: throw .unservedArguments
            }
            command = .edit(try Self.reportable(try ServerPattern(words[0]), account: words[1]), account: words[1], label: values["--label"],
                            newAccount: newAccount, moveTo: moveTo, yes: yes, filter: filter)
        default:
            throw .unservedArguments
        }
        // An empty --vault counts as not given, as in the full program.
        self.vault = values["--vault"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// `server`, when it and `account` are names `Line` prints as the full program does.
    private static func reportable(_ server: ServerPattern, account: String) throws(HandBack) -> ServerPattern {
        guard account.utf8.allSatisfy({ $0 < 0x80 }), server.host.utf8.allSatisfy({ $0 < 0x80 }),
              !Line.containsACEPrefix(server.host.lowercased()) else { throw .unservedArguments }
        return server
    }

    /// The request frame (`u32` body byte count, then the body: `u8` version
    /// 2, `u8` operation, its fields), built in locked memory: `add`'s
    /// password is copied nowhere else.
    /// - Parameter password: `add`'s password (not empty); nil for the others.
    /// - Throws: `HandBack.agentTrouble` when no locked memory can be had.
    func frame(password: UnsafeRawBufferPointer? = nil) throws(HandBack) -> LockedBytes {
        var out = RequestWriter()
        var tail: [UInt8] = []
        switch command {
        case let .get(server, account, yes, filter):
            out.bytes([2, 5])
            out.pattern(server)
            if let account {
                out.bytes([1])
                out.string(account)
            } else {
                out.bytes([0])
            }
            // answers: approveAll (--yes), no answers given yet.
            out.bytes([filter, yes ? 1 : 0, 0])
        case let .listServer(server, filter):
            out.bytes([2, 6, 1])
            out.pattern(server)
            out.bytes([filter])
        case let .listEverything(filter):
            // `search ""` answers every web login and every generic password in
            // the order `list` prints them (`Keyshelf.search`: all entries for "").
            out.bytes([2, 12])
            out.string("")
            out.bytes([filter])
        case let .search(query):
            out.bytes([2, 12])
            out.string(query)
            out.bytes([0])
        case let .change(server, account, yes, filter, newItems):
            out.bytes([2, 9])
            out.pattern(server)
            out.string(account)
            withUnsafeBytes(of: UInt32(password?.count ?? 0).littleEndian) { out.bytes(Array($0)) }
            // After the password: filter, store for new items, answers: approveAll (--yes), none given.
            tail = [filter, newItems, yes ? 1 : 0, 0]
        case let .delete(server, account, filter):
            out.bytes([2, 10])
            out.pattern(server)
            out.string(account)
            // answers: approveAll (`rm` is served with --yes only), none given.
            out.bytes([filter, 1, 0])
        case let .edit(server, account, label, newAccount, moveTo, yes, filter):
            out.bytes([2, 20])
            out.pattern(server)
            out.string(account)
            out.bytes([filter])
            // changes: label, notes (none), account, server (none), store; then answers: approveAll (--yes), none given.
            out.optionalString(label)
            out.bytes([0])
            out.optionalString(newAccount)
            out.bytes([0, moveTo, yes ? 1 : 0, 0])
        }
        let secret = password ?? UnsafeRawBufferPointer(start: nil, count: 0)
        var head: [UInt8] = []
        withUnsafeBytes(of: UInt32(out.body.count + secret.count + tail.count).littleEndian) { head += $0 }
        head += out.body
        let frame = try LockedBytes(count: head.count + secret.count + tail.count)
        let bytes = frame.buffer
        bytes.copyBytes(from: head)
        UnsafeMutableRawBufferPointer(rebasing: bytes[head.count...]).copyMemory(from: secret)
        UnsafeMutableRawBufferPointer(rebasing: bytes[(head.count + secret.count)...]).copyBytes(from: tail)
        return frame
    }
}

/// A SERVER argument as the wire's `pattern` (`str` host, `u16` port, 0 for
/// none, `str` scheme, "" for none), split without parsing: the agent accepts
/// a pattern only in the canonical form `ServerPattern(parsing:)` gives for
/// the text `[scheme://]host[:port]` these fields spell, and the split is
/// accepted only when they spell the argument byte for byte. So whatever the
/// agent answers is the answer for exactly the argument given; a name the
/// full program would rewrite (upper case, Unicode, IPv6, a path) is refused
/// by the agent (`badRequest`) and handed to the full program.
struct ServerPattern {
    let host: String
    let port: UInt16
    let scheme: String

    /// - Throws: `HandBack.unservedArguments` when the text is not of that form.
    init(_ text: String) throws(HandBack) {
        let bytes = Array(text.utf8)
        var rest = bytes[...]
        var scheme: [UInt8] = []
        if let at = (0..<max(0, bytes.count - 2)).first(where: { bytes[$0] == 0x3A && bytes[$0 + 1] == 0x2F && bytes[$0 + 2] == 0x2F }) {
            scheme = Array(bytes[..<at])
            rest = bytes[(at + 3)...]
        }
        var port: UInt16 = 0
        if let colon = rest.lastIndex(of: 0x3A), let number = UInt16(String(decoding: rest[(colon + 1)...], as: UTF8.self)),
           number > 0 {
            port = number
            rest = rest[..<colon]
        }
        host = String(decoding: rest, as: UTF8.self)
        self.scheme = String(decoding: scheme, as: UTF8.self)
        self.port = port
        let spelled = (self.scheme.isEmpty ? "" : self.scheme + "://") + host + (port == 0 ? "" : ":\(port)")
        guard !host.isEmpty, !host.utf8.contains(0x3A), spelled == text else { throw .unservedArguments }
    }
}

/// Builds a request body (little-endian integers, `str` = `u32` byte count then UTF-8).
struct RequestWriter {
    private(set) var body: [UInt8] = []

    mutating func bytes(_ values: [UInt8]) {
        body += values
    }

    mutating func string(_ value: String) {
        let utf8 = Array(value.utf8)
        withUnsafeBytes(of: UInt32(utf8.count).littleEndian) { body += $0 }
        body += utf8
    }

    /// `u8` 0, or `u8` 1 then the string.
    mutating func optionalString(_ value: String?) {
        guard let value else { return bytes([0]) }
        bytes([1])
        string(value)
    }

    mutating func pattern(_ pattern: ServerPattern) {
        string(pattern.host)
        withUnsafeBytes(of: pattern.port.littleEndian) { body += $0 }
        string(pattern.scheme)
    }
}
