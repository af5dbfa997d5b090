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
            storeFlags(stores)
        case .deletedGeneric(let deletedFrom):
            store(deletedFrom)
        case let .edited(server, stores):
            self.server(server)
            storeFlags(stores)
        case .editedGeneric:
            break
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
        case .masterPasswordChanged:
            break
        }
    }

    /// Per store (local, shared) `u8` 1 when `stores` holds it, else 0.
    private mutating func storeFlags(_ stores: [Store]) {
        for store in Store.allCases { integer(UInt8(stores.contains(store) ? 1 : 0)) }
    }
}

extension FrameReader {
    /// The result of `operation` after the `ok` status.
    mutating func result(of operation: ShelfOperation) throws -> ShelfResult {
        switch operation {
        case .get:
            return .record(try record())
        case .list:
            return .records(CredentialRecords(try records()))
        case .search:
            let records = try records()
            let count = Int(try integer(UInt32.self))
            guard count <= buffer.byteCount else { throw AgentProtocol.MalformedFrame(reason: "a bad generic password count") }
            var generics: [GenericEntry] = []
            generics.reserveCapacity(count)
            for _ in 0..<count { generics.append(try generic()) }
            return .found(records: CredentialRecords(records), generics: generics)
        case .change:
            var report = PasswordChangeReport(server: try server())
            for (store, outcome) in try outcomes() { report[store] = outcome }
            return .changed(report)
        case .delete:
            return .deleted(server: try server(), stores: try storeFlags())
        case .deleteGeneric:
            return .deletedGeneric(store: try store())
        case .edit:
            let server = try server()
            let stores = try storeFlags()
            guard !stores.isEmpty else { throw AgentProtocol.MalformedFrame(reason: "an edit that left the item in no store") }
            return .edited(server: server, stores: stores)
        case .editGeneric:
            return .editedGeneric
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
        case .changeMasterPassword:
            return .masterPasswordChanged
        }
    }

    /// Per store (local, shared) `u8` 1 when the operation left or found the item there, 0 not.
    private mutating func storeFlags() throws -> [Store] {
        try Store.allCases.filter { _ in try flag() }
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

// MARK: - Vault errors (reply `vaultFailed`)

extension VaultError.Code {
    /// The code's `u8` on the wire (docs/agent-protocol.md, "Replies").
    var wireValue: UInt8 {
        switch self {
        case .wrongPassword: 1
        case .notAVault: 2
        case .unsupportedVersion: 3
        case .damaged: 4
        case .truncated: 5
        case .kdfLimitsTooHigh: 6
        case .kdfLimitsNotApproved: 7
        case .noVault: 8
        case .alreadyExists: 9
        case .changedOnDisk: 10
        case .locked: 11
        case .io: 12
        }
    }

    /// Every code, to read a `wireValue` back.
    static let all: [VaultError.Code] = [
        .wrongPassword, .notAVault, .unsupportedVersion, .damaged, .truncated, .kdfLimitsTooHigh,
        .kdfLimitsNotApproved, .noVault, .alreadyExists, .changedOnDisk, .locked, .io,
    ]
}

extension FrameWriter {
    /// `vaultFailed`'s fields: `u8` code, `str` file, `str` reason.
    mutating func vaultError(_ error: VaultError) {
        integer(error.code.wireValue)
        string(error.file)
        string(error.reason)
    }
}

extension FrameReader {
    /// The error of a `vaultFailed` reply, as the agent met it.
    mutating func vaultError() throws -> VaultError {
        let value = try integer(UInt8.self)
        guard let code = VaultError.Code.all.first(where: { $0.wireValue == value }) else {
            throw AgentProtocol.MalformedFrame(reason: "an unknown vault error")
        }
        return VaultError(code, file: try string(), reason: try string())
    }
}
