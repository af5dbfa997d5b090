import Foundation
import KeyshelfCredentials
import KeyshelfCrypto
import KeyshelfVault

// MARK: - Results (docs/agent-protocol.md, "Replies")

extension FrameWriter {
    /// The result's fields after the `ok` status.
    mutating func result(_ result: ShelfResult) {
        switch result {
        case .record(let found):
            record(found)
        case .records(let found):
            reserve(4 + found.reduce(0) { $0 + Self.byteCount(of: $1) })
            integer(UInt32(found.count))
            for each in found { record(each) }
        case let .found(records, generics):
            reserve(8 + records.reduce(0) { $0 + Self.byteCount(of: $1) } + generics.reduce(0) { $0 + Self.byteCount(of: $1) })
            integer(UInt32(records.count))
            for each in records { record(each) }
            integer(UInt32(generics.count))
            for each in generics { generic(each) }
        case .changed(let report):
            server(report.server)
            outcomes { report[$0] }
        case let .deleted(server, stores):
            self.server(server)
            for store in Store.allCases { integer(UInt8(stores.contains(store) ? 1 : 0)) }
        case .deletedGeneric(let deletedFrom):
            store(deletedFrom)
        case let .lookedUp(server, found):
            self.server(server)
            integer(UInt8(found == nil ? 0 : 1))
            if let found {
                record(found)
                metadata(found.metadata)
            }
        case .generated(let password):
            secret(password)
        case .saved(let saved):
            outcomes { $0 == .local ? saved.local : saved.shared }
        case .exported(let items):
            integer(UInt32(items.count))
            for item in items { exportItem(item) }
        case .planned(let classes):
            integer(UInt32(classes.count))
            for each in classes { integer(each.rawValue) }
        case .imported(let outcomes):
            integer(UInt32(outcomes.count))
            for each in outcomes { integer(each.rawValue) }
        }
    }
}

extension FrameReader {
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
            for (store, outcome) in try outcomes() { report[store] = outcome }
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
        case .lookup:
            let server = try server()
            guard try flag() else { return .lookedUp(server: server, record: nil) }
            var found = try record()
            found.metadata = try metadata()
            return .lookedUp(server: server, record: found)
        case .suggestPassword:
            let password = try secret()
            guard password.byteCount > 0 else { throw AgentProtocol.MalformedFrame(reason: "an empty generated password") }
            return .generated(password)
        case .saveLogin:
            let outcomes = try outcomes()
            return .saved(SaveResult(local: outcomes[.local], shared: outcomes[.shared]))
        case .export:
            let count = Int(try integer(UInt32.self))
            guard count <= buffer.byteCount else { throw AgentProtocol.MalformedFrame(reason: "a bad item count") }
            var items: [Item] = []
            items.reserveCapacity(count)
            for _ in 0..<count { items.append(try exportItem()) }
            return .exported(items)
        case .planImport(let logins, _):
            return .planned(try codes(count: logins.count, ImportClass.init(rawValue:)))
        case let .importLogins(additions, updates, _):
            return .imported(try codes(count: additions.count + updates.count, ImportOutcome.init(rawValue:)))
        }
    }

    /// `u32` count, which must be `count` (one per login sent), then each a `u8` code of `decode`.
    private mutating func codes<T>(count: Int, _ decode: (UInt8) -> T?) throws -> [T] {
        guard Int(try integer(UInt32.self)) == count else { throw AgentProtocol.MalformedFrame(reason: "not one answer per login") }
        return try (0..<count).map { _ in
            guard let value = decode(try integer(UInt8.self)) else { throw AgentProtocol.MalformedFrame(reason: "an unknown import answer") }
            return value
        }
    }
}
