import Foundation
import KeyshelfCredentials
import KeyshelfCrypto
import KeyshelfVault

// MARK: - Wire fields of the credentials operations (docs/agent-protocol.md, "Requests")

extension FrameWriter {
    /// `str` host (A-label), `u16` port (0 = the scheme's default), `str` scheme.
    mutating func server(_ server: ServerName) {
        string(server.host)
        integer(UInt16(clamping: server.port))
        string(server.scheme)
    }

    /// A lookup's server: `str` host (A-label), `u16` port as given (0: none
    /// given), `str` scheme ("" when none was given: every protocol matches).
    mutating func pattern(_ pattern: ServerPattern) {
        string(pattern.host)
        integer(UInt16(clamping: pattern.port ?? 0))
        string(pattern.scheme ?? "")
    }

    /// `u8`: 0 both, 1 local, 2 shared.
    mutating func filter(_ filter: StoreFilter) {
        integer(UInt8(filter == .both ? 0 : filter == .local ? 1 : 2))
    }

    /// `u8`: 0 local, 1 shared.
    mutating func store(_ store: Store) {
        integer(UInt8(store == .local ? 0 : 1))
    }

    /// An edit's `MetadataChanges`: label, notes and account each as an
    /// optional `str`, `u8` has server then `server`, `u8` store (0 local,
    /// 1 shared, 2 unchanged).
    mutating func changes(_ changes: MetadataChanges) {
        optionalString(changes.label)
        optionalString(changes.notes)
        optionalString(changes.account)
        integer(UInt8(changes.server == nil ? 0 : 1))
        if let server = changes.server { self.server(server) }
        if let store = changes.store { self.store(store) } else { integer(UInt8(2)) }
    }

    /// `u8` kind (1 update, 2 delete, 3 release, 4 update and 5 delete of a
    /// generic password, 6 release to an associated client), the server
    /// (`str` service for 4 and 5), `u32` account count, accounts; kind 6
    /// then `str` the client.
    mutating func consentRequest(_ request: ConsentRequest) {
        let accounts: [String]
        var client: String?
        switch request {
        case let .update(server, account): integer(UInt8(1)); self.server(server); accounts = [account]
        case let .delete(server, account): integer(UInt8(2)); self.server(server); accounts = [account]
        case let .release(server, names): integer(UInt8(3)); self.server(server); accounts = names
        case let .updateService(service, account): integer(UInt8(4)); string(service); accounts = [account]
        case let .deleteService(service, account): integer(UInt8(5)); string(service); accounts = [account]
        case let .releaseToClient(name, server, names): integer(UInt8(6)); self.server(server); accounts = names; client = name
        }
        integer(UInt32(accounts.count))
        for account in accounts { string(account) }
        if let client { string(client) }
    }

    /// `u8` 1 when every request is approved in advance (`--yes`), else 0;
    /// `u8` count, then per answer: the request and `u8` 0 declined, 1 approved,
    /// or 2 then `str` the chosen account.
    mutating func answers(_ answers: ConsentAnswers) {
        integer(UInt8(answers.approveAll ? 1 : 0))
        integer(UInt8(answers.given.count))
        for (request, answer) in answers.given {
            consentRequest(request)
            switch answer {
            case .declined: integer(UInt8(0))
            case .approved: integer(UInt8(1))
            case .chose(let account):
                integer(UInt8(2))
                string(account)
            }
        }
    }

    /// server, `str` account, `u8` store, then `u8` 0 (no password), 2 (a Sign
    /// in with Apple account: no password), or 1 and the password as `secret`.
    mutating func record(_ record: CredentialRecord) {
        server(record.server)
        string(record.account)
        store(record.store)
        integer(UInt8(record.password != nil ? 1 : record.signInWith == .apple ? 2 : 0))
        if let password = record.password { secret(password) }
    }

    /// The bytes `record(_:)` writes for `record`.
    static func byteCount(of record: CredentialRecord) -> Int {
        4 + record.server.host.utf8.count + 2 + 4 + record.server.scheme.utf8.count + 4 + record.account.utf8.count + 1 + 1
            + (record.password.map { 4 + $0.byteCount } ?? 0)
    }

    /// The bytes `generic(_:)` writes for `entry`.
    static func byteCount(of entry: GenericEntry) -> Int {
        4 + 36 + 4 + entry.service.utf8.count + 4 + entry.account.utf8.count + 1 + 4 + entry.label.utf8.count
            + 4 + entry.comment.utf8.count + 8 + 8 + 1
    }

    /// `str` id (UUID text), `str` service, `str` account, `store`, `str`
    /// label, `str` notes, `u64` created and `u64` modified (the bits of the
    /// `Double` seconds since 2001-01-01 UTC, `Date`'s own value, so dates
    /// travel exactly), `u8` access control (0 none, 1 userPresence). No password.
    mutating func generic(_ entry: GenericEntry) {
        string(entry.id.uuidString)
        string(entry.service)
        string(entry.account)
        store(entry.store)
        string(entry.label)
        string(entry.comment)
        integer(entry.creationDate.timeIntervalSinceReferenceDate.bitPattern)
        integer(entry.modificationDate.timeIntervalSinceReferenceDate.bitPattern)
        integer(entry.accessControl.rawValue)
    }

    /// Per store (local, shared) `u8` outcome: 0 added, 1 updated, 2
    /// unchanged, 3 deleted, 255 not written (declined, or not that store).
    mutating func outcomes(_ outcome: (Store) -> AddOutcome?) {
        for store in Store.allCases {
            let code: UInt8 = switch outcome(store) {
            case nil: 0xFF
            case .added: 0
            case .updated: 1
            case .unchanged: 2
            case .deleted: 3
            }
            integer(code)
        }
    }

    /// An item as an export reads it (`Item.exportView`): `str` id (UUID
    /// text), `u8` class (1 generic, 2 internet), `str` account, `str`
    /// service, `str` server, `str` protocol, `u16` port, `str` path, `str`
    /// label, `str` comment, `str` otpauth, `u64` created and `u64` modified
    /// (the bits of the `Double` seconds since 2001-01-01 UTC), then `u8` 0,
    /// or 1 and the password as `secret`.
    mutating func exportItem(_ item: Item) {
        string(item.id.uuidString)
        integer(item.itemClass.rawValue)
        for text in [item.account, item.service, item.server, item.protocol] { string(text) }
        integer(UInt16(clamping: item.port))
        for text in [item.path, item.label, item.comment, item.otpauth] { string(text) }
        integer(item.creationDate.timeIntervalSinceReferenceDate.bitPattern)
        integer(item.modificationDate.timeIntervalSinceReferenceDate.bitPattern)
        integer(UInt8(item.password == nil ? 0 : 1))
        if let password = item.password { secret(password) }
    }

    /// `u32` count, then per login: `server`, `str` path, `str` account,
    /// `secret` password, `str` label, `str` comment, `str` otpauth, `u8` 0
    /// or 1 then `u64` created (the bits of the `Double` seconds since 2001-01-01 UTC).
    mutating func logins(_ logins: [ImportLogin]) {
        integer(UInt32(logins.count))
        for login in logins {
            server(login.server)
            string(login.path)
            string(login.account)
            secret(login.password)
            string(login.label)
            string(login.comment)
            string(login.otpauth)
            integer(UInt8(login.creationDate == nil ? 0 : 1))
            if let created = login.creationDate { integer(created.timeIntervalSinceReferenceDate.bitPattern) }
        }
    }

    /// `u8` 0 (none), or 1 then `str` label, `str` notes, `u64` created and
    /// `u64` modified (the bits of the `Double` seconds since 2001-01-01 UTC).
    mutating func metadata(_ metadata: ItemMetadata?) {
        integer(UInt8(metadata == nil ? 0 : 1))
        guard let metadata else { return }
        string(metadata.label)
        string(metadata.notes)
        integer(metadata.created.timeIntervalSinceReferenceDate.bitPattern)
        integer(metadata.modified.timeIntervalSinceReferenceDate.bitPattern)
    }
}

/// The client's answers to consent requests, relayed to the agent with an
/// operation: the user's `--yes`, and each request already put to the user.
struct ConsentAnswers {
    var approveAll = false
    var given: [(request: ConsentRequest, answer: ConsentAnswer)] = []
}

extension FrameReader {
    /// A server as the agent wrote it (replies): taken as it is, so reading
    /// a listing of 10 000 records costs no IDNA work.
    mutating func server() throws -> ServerName {
        let host = try string()
        let port = Int(try integer(UInt16.self))
        let scheme = try string()
        guard !host.isEmpty, !scheme.isEmpty else { throw AgentProtocol.MalformedFrame(reason: "an empty server") }
        return ServerName(host: host, port: port, scheme: scheme)
    }

    /// A server in a request: accepted only in the canonical form
    /// `ServerPattern(parsing:)` gives, so a raw frame cannot save a name the
    /// CLI and TUI would refuse (control characters, other schemes, …).
    mutating func checkedPattern() throws -> ServerPattern {
        let host = try string()
        let port = Int(try integer(UInt16.self))
        let scheme = try string()
        let claimed = ServerPattern(host: host, port: port == 0 ? nil : port, scheme: scheme.isEmpty ? nil : scheme)
        let bracketed = host.contains(":") ? "[\(host)]" : host
        let text = (claimed.scheme.map { "\($0)://" } ?? "") + bracketed + (claimed.port.map { ":\($0)" } ?? "")
        guard !host.isEmpty, let parsed = try? ServerPattern(parsing: text), parsed == claimed else {
            throw AgentProtocol.MalformedFrame(reason: "a server name that is not in canonical form")
        }
        return parsed
    }

    mutating func filter() throws -> StoreFilter {
        switch try integer(UInt8.self) {
        case 0: return .both
        case 1: return .local
        case 2: return .shared
        default: throw AgentProtocol.MalformedFrame(reason: "an unknown store filter")
        }
    }

    mutating func store() throws -> Store {
        switch try integer(UInt8.self) {
        case 0: return .local
        case 1: return .shared
        default: throw AgentProtocol.MalformedFrame(reason: "an unknown store")
        }
    }

    /// The `MetadataChanges` `FrameWriter.changes` wrote; a new server only
    /// in canonical form, a new account never empty (the CLI refuses both).
    mutating func changes() throws -> MetadataChanges {
        var changes = MetadataChanges(label: try optionalString(), notes: try optionalString(), account: try optionalString())
        guard changes.account?.isEmpty != true else { throw AgentProtocol.MalformedFrame(reason: "an empty new account") }
        if try flag() { changes.server = try checkedServer() }
        switch try integer(UInt8.self) {
        case 0: changes.store = .local
        case 1: changes.store = .shared
        case 2: break
        default: throw AgentProtocol.MalformedFrame(reason: "an unknown store")
        }
        return changes
    }

    mutating func consentRequest() throws -> ConsentRequest {
        let kind = try integer(UInt8.self)
        let isService = kind == 4 || kind == 5
        let service = isService ? try string() : nil
        let server = isService ? nil : try self.server()
        let count = Int(try integer(UInt32.self))
        guard count >= 1, count <= buffer.byteCount else { throw AgentProtocol.MalformedFrame(reason: "a bad account count") }
        var accounts: [String] = []
        for _ in 0..<count { accounts.append(try string()) }
        switch (kind, server, service) {
        case (1, let server?, _) where count == 1: return .update(server: server, account: accounts[0])
        case (2, let server?, _) where count == 1: return .delete(server: server, account: accounts[0])
        case (3, let server?, _): return .release(server: server, accounts: accounts)
        case (4, _, let service?) where count == 1: return .updateService(service: service, account: accounts[0])
        case (5, _, let service?) where count == 1: return .deleteService(service: service, account: accounts[0])
        case (6, let server?, _): return .releaseToClient(client: try string(), server: server, accounts: accounts)
        default: throw AgentProtocol.MalformedFrame(reason: "an unknown consent request")
        }
    }

    mutating func answers() throws -> ConsentAnswers {
        var answers = ConsentAnswers(approveAll: try flag())
        let count = Int(try integer(UInt8.self))
        guard count <= AgentProtocol.maximumAnswerCount else { throw AgentProtocol.MalformedFrame(reason: "too many consent answers") }
        for _ in 0..<count {
            let request = try consentRequest()
            let answer: ConsentAnswer = switch try integer(UInt8.self) {
            case 0: .declined
            case 1: .approved
            case 2: .chose(account: try string())
            default: throw AgentProtocol.MalformedFrame(reason: "an unknown consent answer")
            }
            answers.given.append((request, answer))
        }
        return answers
    }

    mutating func record() throws -> CredentialRecord {
        let server = try self.server()
        let account = try string()
        let store = try self.store()
        let kind = try integer(UInt8.self)
        guard kind <= 2 else { throw AgentProtocol.MalformedFrame(reason: "an unknown record kind") }
        var record = CredentialRecord(server: server, account: account, password: kind == 1 ? try secret() : nil, store: store)
        if kind == 2 { record.signInWith = .apple }
        return record
    }

    /// `count` records: `u32` count, then each (`record`).
    mutating func records() throws -> [CredentialRecord] {
        let count = Int(try integer(UInt32.self))
        guard count <= buffer.byteCount else { throw AgentProtocol.MalformedFrame(reason: "a bad record count") }
        var records: [CredentialRecord] = []
        records.reserveCapacity(count)
        for _ in 0..<count { records.append(try record()) }
        return records
    }

    /// A generic password as `FrameWriter.generic` wrote it.
    mutating func generic() throws -> GenericEntry {
        guard let id = UUID(uuidString: try string()) else { throw AgentProtocol.MalformedFrame(reason: "a bad item id") }
        let service = try string(), account = try string(), store = try self.store(), label = try string(), comment = try string()
        let created = Date(timeIntervalSinceReferenceDate: Double(bitPattern: try integer(UInt64.self)))
        let modified = Date(timeIntervalSinceReferenceDate: Double(bitPattern: try integer(UInt64.self)))
        guard let accessControl = AccessControl(rawValue: try integer(UInt8.self)) else {
            throw AgentProtocol.MalformedFrame(reason: "an unknown access control")
        }
        return GenericEntry(id: id, store: store, service: service, account: account, label: label, comment: comment,
                            creationDate: created, modificationDate: modified, accessControl: accessControl)
    }

    /// A server in a request, accepted only in the canonical form
    /// `ServerName(parsing:schemes:)` gives for one of `schemes`.
    mutating func checkedServer(schemes: Set<String> = ServerName.webSchemes) throws -> ServerName {
        let host = try string()
        let port = Int(try integer(UInt16.self))
        let scheme = try string()
        let claimed = ServerName(host: host, port: port, scheme: scheme)
        let bracketed = host.contains(":") ? "[\(host)]" : host
        let text = "\(scheme)://\(bracketed)" + (port == 0 ? "" : ":\(port)")
        guard !host.isEmpty, claimed.port == port, let parsed = try? ServerName(parsing: text, schemes: schemes), parsed == claimed else {
            throw AgentProtocol.MalformedFrame(reason: "a server name that is not in canonical form")
        }
        return parsed
    }

    /// The per-store outcomes `FrameWriter.outcomes` wrote.
    mutating func outcomes() throws -> [Store: AddOutcome] {
        var outcomes: [Store: AddOutcome] = [:]
        for store in Store.allCases {
            switch try integer(UInt8.self) {
            case 0xFF: break
            case 0: outcomes[store] = .added
            case 1: outcomes[store] = .updated
            case 2: outcomes[store] = .unchanged
            case 3: outcomes[store] = .deleted
            default: throw AgentProtocol.MalformedFrame(reason: "an unknown add outcome")
            }
        }
        return outcomes
    }

    /// An item as `FrameWriter.exportItem` wrote it.
    mutating func exportItem() throws -> Item {
        guard let id = UUID(uuidString: try string()) else { throw AgentProtocol.MalformedFrame(reason: "a bad item id") }
        guard let itemClass = ItemClass(rawValue: try integer(UInt8.self)) else { throw AgentProtocol.MalformedFrame(reason: "an unknown item class") }
        let account = try string(), service = try string(), server = try string(), scheme = try string()
        let port = Int(try integer(UInt16.self))
        let path = try string(), label = try string(), comment = try string(), otpauth = try string()
        let created = Date(timeIntervalSinceReferenceDate: Double(bitPattern: try integer(UInt64.self)))
        let modified = Date(timeIntervalSinceReferenceDate: Double(bitPattern: try integer(UInt64.self)))
        let password = try flag() ? try sharedSecret() : nil
        guard password == nil || itemClass == .internetPassword else {
            throw AgentProtocol.MalformedFrame(reason: "a generic password's secret in an export")
        }
        return Item(id: id, itemClass: itemClass, account: account, service: service, server: server, protocol: scheme, port: port,
                    path: path, label: label, comment: comment, otpauth: otpauth, creationDate: created,
                    modificationDate: modified, password: password)
    }

    /// Logins as `FrameWriter.logins` wrote them, checked as an import's
    /// reader makes them: a web server in canonical form or an Android app
    /// login (`androidapp://PACKAGE`), a non-empty account and password.
    mutating func logins() throws -> [ImportLogin] {
        let count = Int(try integer(UInt32.self))
        guard count <= buffer.byteCount else { throw AgentProtocol.MalformedFrame(reason: "a bad login count") }
        var logins: [ImportLogin] = []
        logins.reserveCapacity(count)
        for _ in 0..<count {
            let server = try loginServer()
            let path = try string(), account = try string(), password = try sharedSecret()
            let label = try string(), comment = try string(), otpauth = try string()
            let created = try flag() ? Date(timeIntervalSinceReferenceDate: Double(bitPattern: try integer(UInt64.self))) : nil
            guard !account.isEmpty, password.byteCount > 0 else { throw AgentProtocol.MalformedFrame(reason: "an empty account or password") }
            logins.append(ImportLogin(server: server, path: path, account: account, password: password, label: label,
                                      comment: comment, otpauth: otpauth, creationDate: created))
        }
        return logins
    }

    /// An imported login's server: `checkedServer()`, or an app login.
    private mutating func loginServer() throws -> ServerName {
        var probe = self
        let host = try probe.string()
        let port = try probe.integer(UInt16.self)
        if try probe.string() == ServerName.appScheme {
            guard ServerName.isAppPackage(host), port == 0 else { throw AgentProtocol.MalformedFrame(reason: "a bad app login") }
            self = probe
            return ServerName(host: host, port: 0, scheme: ServerName.appScheme)
        }
        return try checkedServer()
    }

    /// An item's label, notes and dates as `FrameWriter.metadata` wrote them.
    mutating func metadata() throws -> ItemMetadata? {
        guard try flag() else { return nil }
        let label = try string(), notes = try string()
        let created = Date(timeIntervalSinceReferenceDate: Double(bitPattern: try integer(UInt64.self)))
        let modified = Date(timeIntervalSinceReferenceDate: Double(bitPattern: try integer(UInt64.self)))
        return ItemMetadata(label: label, notes: notes, created: created, modified: modified)
    }
}
