import Foundation
import KeyshelfCredentials
import KeyshelfCrypto
import KeyshelfVault

/// The agent's part of a `ShelfOperation`: its request code. The agent
/// only encodes and decodes operations and results (below) and runs
/// `ShelfOperation.perform(on:)` on its open vault; consent is asked by the client.
extension ShelfOperation {
    var code: AgentProtocol.Operation {
        switch self {
        case .get: .get
        case .list: .list
        case .search: .search
        case .change: .change
        case .delete: .delete
        case .deleteGeneric: .deleteGeneric
        }
    }
}

// MARK: - Wire encoding (docs/agent-protocol.md, "Operations")

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

    /// The operation's fields (after the operation code) and the consent answers so far.
    mutating func operation(_ operation: ShelfOperation, answers: ConsentAnswers) {
        switch operation {
        case let .get(server, account, filter):
            pattern(server)
            optionalString(account)
            self.filter(filter)
            self.answers(answers)
        case let .list(server, filter):
            integer(UInt8(server == nil ? 0 : 1))
            if let server { pattern(server) }
            self.filter(filter)
        case let .search(query, filter):
            string(query)
            self.filter(filter)
        case let .change(server, account, password, filter, newItems):
            pattern(server)
            string(account)
            secret(password)
            self.filter(filter)
            store(newItems)
            self.answers(answers)
        case let .delete(server, account, filter):
            pattern(server)
            string(account)
            self.filter(filter)
            self.answers(answers)
        case let .deleteGeneric(service, account):
            string(service)
            string(account)
            self.answers(answers)
        }
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

    /// The result's fields after the `ok` status.
    mutating func result(_ result: ShelfResult) {
        switch result {
        case .record(let found):
            record(found)
        case .records(let found):
            integer(UInt32(found.count))
            for each in found { record(each) }
        case let .found(records, generics):
            integer(UInt32(records.count))
            for each in records { record(each) }
            integer(UInt32(generics.count))
            for each in generics { generic(each) }
        case .changed(let report):
            server(report.server)
            for store in Store.allCases {
                let code: UInt8 = switch report[store] {
                case nil: 0xFF
                case .added: 0
                case .updated: 1
                case .unchanged: 2
                case .deleted: 3
                }
                integer(code)
            }
        case let .deleted(server, stores):
            self.server(server)
            for store in Store.allCases { integer(UInt8(stores.contains(store) ? 1 : 0)) }
        case .deletedGeneric(let deletedFrom):
            store(deletedFrom)
        }
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

    /// The fields of `code` written by `FrameWriter.operation`.
    mutating func operation(_ code: AgentProtocol.Operation) throws -> (ShelfOperation, ConsentAnswers) {
        switch code {
        case .get:
            let operation = ShelfOperation.get(server: try checkedPattern(), account: try optionalString(), filter: try filter())
            return (operation, try answers())
        case .list:
            let server = try flag() ? try checkedPattern() : nil
            return (.list(server: server, filter: try filter()), ConsentAnswers())
        case .search:
            return (.search(query: try string(), filter: try filter()), ConsentAnswers())
        case .change:
            let server = try checkedPattern()
            let account = try string()
            let password = try secret()
            // The CLI and TUI never save an empty account or password.
            guard !account.isEmpty, password.byteCount > 0 else {
                throw AgentProtocol.MalformedFrame(reason: "an empty account or password")
            }
            let operation = ShelfOperation.change(server: server, account: account, password: password,
                                                  filter: try filter(), newItems: try store())
            return (operation, try answers())
        case .delete:
            let server = try checkedPattern()
            let account = try string()
            // `keyshelf rm` always names the account.
            guard !account.isEmpty else { throw AgentProtocol.MalformedFrame(reason: "an empty account") }
            return (.delete(server: server, account: account, filter: try filter()), try answers())
        case .deleteGeneric:
            let service = try string()
            let account = try string()
            // The facade checks the service name itself (`checkService`), as on the direct path.
            guard !service.isEmpty, !account.isEmpty else { throw AgentProtocol.MalformedFrame(reason: "an empty service or account") }
            return (.deleteGeneric(service: service, account: account), try answers())
        case .status, .unlock, .keys, .lock:
            throw AgentProtocol.MalformedFrame(reason: "not a credentials operation")
        }
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

    /// The result of `operation` after the `ok` status.
    mutating func result(of operation: ShelfOperation) throws -> ShelfResult {
        switch operation {
        case .get:
            return .record(try record())
        case .list:
            return .records(try records())
        case .search:
            let records = try records()
            let count = Int(try integer(UInt32.self))
            guard count <= buffer.byteCount else { throw AgentProtocol.MalformedFrame(reason: "a bad generic password count") }
            var generics: [GenericEntry] = []
            generics.reserveCapacity(count)
            for _ in 0..<count { generics.append(try generic()) }
            return .found(records: records, generics: generics)
        case .change:
            var report = PasswordChangeReport(server: try server())
            for store in Store.allCases {
                switch try integer(UInt8.self) {
                case 0xFF: report[store] = nil
                case 0: report[store] = .added
                case 1: report[store] = .updated
                case 2: report[store] = .unchanged
                case 3: report[store] = .deleted
                default: throw AgentProtocol.MalformedFrame(reason: "an unknown add outcome")
                }
            }
            return .changed(report)
        case .delete:
            let server = try server()
            var stores: [Store] = []
            for store in Store.allCases {
                switch try integer(UInt8.self) {
                case 0: break
                case 1: stores.append(store)
                default: throw AgentProtocol.MalformedFrame(reason: "an unknown delete outcome")
                }
            }
            return .deleted(server: server, stores: stores)
        case .deleteGeneric:
            return .deletedGeneric(store: try store())
        }
    }
}
