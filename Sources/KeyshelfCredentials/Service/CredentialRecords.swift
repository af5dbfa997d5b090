/// The records of a `list` or `search` (`ShelfResult`): web logins without
/// passwords, in the facade's order. Made from the facade's listing entries
/// they read each record from its entry when asked, so the agent encodes a
/// listing of 100 000 credentials without an array of 100 000 records beside
/// it (about 19 MB, docs/benchmarks.md "Session 13"); decoded from a reply
/// they hold the records.
public struct CredentialRecords: RandomAccessCollection, Sendable, Equatable, ExpressibleByArrayLiteral {
    private enum Storage: Sendable {
        case entries([CredentialEntry])
        case records([CredentialRecord])
    }

    private let storage: Storage

    public init(_ records: [CredentialRecord]) {
        storage = .records(records)
    }

    public init(arrayLiteral records: CredentialRecord...) {
        storage = .records(records)
    }

    /// Each entry's `record`, read when asked.
    public init(entries: [CredentialEntry]) {
        storage = .entries(entries)
    }

    public var startIndex: Int { 0 }

    public var endIndex: Int {
        switch storage {
        case .entries(let entries): entries.count
        case .records(let records): records.count
        }
    }

    public subscript(position: Int) -> CredentialRecord {
        switch storage {
        case .entries(let entries): entries[position].record
        case .records(let records): records[position]
        }
    }

    public static func == (lhs: CredentialRecords, rhs: CredentialRecords) -> Bool {
        lhs.elementsEqual(rhs)
    }
}
