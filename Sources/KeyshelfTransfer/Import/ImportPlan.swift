import Foundation
import KeyshelfCredentials
import KeyshelfCrypto
import KeyshelfVault

/// What an import would do to one store, decided without writing anything
/// (issue 5, "Conflicts"): a pure function of the file and the saved items.
///
/// - No saved item for `(server, account)` → an **addition**, no prompt (DESIGN §3).
/// - A saved item with the same password → **skipped** ("already saved").
/// - A saved item with another password → an **update**, which needs consent.
/// - A later row with the same `(server, account)` as an earlier one is
///   skipped when the password is the same, and failed otherwise (the file
///   contradicts itself, so the first row is kept and the conflict named).
public struct ImportPlan: Sendable {
    /// The file, format and ignored columns the plan came from.
    public let source: ImportSource
    /// The store the rows go to.
    public let store: Store
    /// Rows to store as new items.
    public private(set) var additions: [ImportCandidate]
    /// Rows that replace the password of a saved item; consent decides.
    public private(set) var updates: [ImportCandidate]
    /// Rows not imported, with reasons.
    public private(set) var skipped: [ReportedRow]
    /// Rows that cannot be imported, with reasons.
    public private(set) var failed: [ReportedRow]

    /// Plans importing `source` into `store`, whose items (tombstones included) are `existing`.
    public init(source: ImportSource, existing: [Item], store: Store) {
        self.source = source
        self.store = store
        additions = []
        updates = []
        skipped = source.skipped
        failed = source.failed
        let saved = ItemIndex(existing)
        var firstRow: [ItemKey: ImportCandidate] = [:]
        for candidate in source.candidates {
            let key = ItemKey(candidate)
            if let earlier = firstRow[key] {
                if earlier.password == candidate.password {
                    skipped.append(candidate.reported("duplicate of row \(earlier.position.row)"))
                } else {
                    failed.append(candidate.reported(
                        "same server and account as row \(earlier.position.row) with another password; row \(earlier.position.row) kept"))
                }
                continue
            }
            firstRow[key] = candidate
            let live = saved.live(key).map { existing[$0] }
            if live.isEmpty {
                additions.append(candidate)
            } else if live.contains(where: { $0.password == candidate.password }) {
                skipped.append(candidate.reported(ImportReport.alreadySaved))
            } else {
                updates.append(candidate)
            }
        }
    }

    /// Asks `consent` about each update (`ConsentRequest.update`, "Update
    /// Saved Password?"); declined ones move to `skipped` (DESIGN §5: a
    /// non-interactive run without `--yes` declines).
    public mutating func askConsent(_ consent: some Consent) {
        var approved: [ImportCandidate] = []
        for candidate in updates {
            if consent.ask(.update(server: candidate.server, account: candidate.account)) == .declined {
                skipped.append(candidate.reported("update declined; saved password kept"))
            } else {
                approved.append(candidate)
            }
        }
        updates = approved
    }

    /// The report of this plan as it stands, for `--dry-run` (nothing written).
    public var dryRunReport: ImportReport {
        ImportReport(source: source, store: store, dryRun: true,
                     imported: additions.map { $0.reported("") }, updated: updates.map { $0.reported("") },
                     skipped: skipped, failed: failed)
    }

    /// Applies the plan to `items` (the store's items, read again under the
    /// vault lock) and returns what was done. Call inside `VaultSession.modify`
    /// so the whole import is saved at once or not at all.
    ///
    /// Items saved since the plan was made are respected: an addition whose
    /// `(server, account)` now exists is skipped (same password) or left alone
    /// (another password, which nobody consented to replace).
    /// - Parameter now: creation / modification date of the written items.
    public func apply(to items: inout [Item], now: Date = Date()) -> ImportReport {
        var index = ItemIndex(items)
        var imported: [ReportedRow] = []
        var updated: [ReportedRow] = []
        var skipped = self.skipped
        for candidate in additions {
            let key = ItemKey(candidate)
            let live = index.live(key)
            if live.isEmpty {
                if let tomb = index.tombstone(key) {
                    items[tomb] = newItem(candidate, id: items[tomb].id, now: now)
                    index.revive(key, at: tomb)
                } else {
                    items.append(newItem(candidate, id: UUID(), now: now))
                    index.add(key, at: items.count - 1)
                }
                imported.append(candidate.reported(""))
            } else if live.contains(where: { items[$0].password == candidate.password }) {
                skipped.append(candidate.reported(ImportReport.alreadySaved))
            } else {
                skipped.append(candidate.reported("saved meanwhile with another password; not replaced"))
            }
        }
        for candidate in updates {
            let live = index.live(ItemKey(candidate))
            if live.isEmpty {
                items.append(newItem(candidate, id: UUID(), now: now))
                index.add(ItemKey(candidate), at: items.count - 1)
                imported.append(candidate.reported(""))
                continue
            }
            for i in live {
                items[i].replacePassword(with: candidate.password, at: now)
                if !candidate.comment.isEmpty { items[i].comment = candidate.comment }
                if !candidate.otpauth.isEmpty { items[i].otpauth = candidate.otpauth }
                items[i].modificationDate = now
            }
            updated.append(candidate.reported(""))
        }
        return ImportReport(source: source, store: store, dryRun: false,
                            imported: imported, updated: updated, skipped: skipped, failed: failed)
    }

    private func newItem(_ candidate: ImportCandidate, id: UUID, now: Date) -> Item {
        Item(id: id, itemClass: .internetPassword, account: candidate.account,
             server: candidate.server.host, protocol: candidate.server.scheme, port: candidate.server.port,
             path: candidate.path, label: candidate.label, comment: candidate.comment, otpauth: candidate.otpauth,
             creationDate: candidate.creationDate ?? now, modificationDate: now, accessible: .whenUnlocked,
             synchronizable: store == .shared, password: candidate.password)
    }
}

/// The identity `ItemQuery.internet(server, account:)` matches on.
struct ItemKey: Hashable {
    let host: String
    let scheme: String
    let port: Int
    let account: String

    init(_ candidate: ImportCandidate) {
        host = candidate.server.host
        scheme = candidate.server.scheme
        port = candidate.server.port
        account = candidate.account
    }

    init?(_ item: Item) {
        guard item.itemClass == .internetPassword else { return nil }
        host = item.server
        scheme = item.protocol
        port = item.port
        account = item.account
    }
}

/// Positions of internet-password items by key, so a 10k-row import stays linear.
struct ItemIndex {
    private var liveItems: [ItemKey: [Int]] = [:]
    private var tombstones: [ItemKey: Int] = [:]

    init(_ items: [Item]) {
        for (i, item) in items.enumerated() {
            guard let key = ItemKey(item) else { continue }
            if item.isDeleted {
                if tombstones[key] == nil { tombstones[key] = i }
            } else {
                liveItems[key, default: []].append(i)
            }
        }
    }

    func live(_ key: ItemKey) -> [Int] { liveItems[key] ?? [] }
    func tombstone(_ key: ItemKey) -> Int? { tombstones[key] }

    mutating func add(_ key: ItemKey, at index: Int) {
        liveItems[key, default: []].append(index)
    }

    mutating func revive(_ key: ItemKey, at index: Int) {
        tombstones[key] = nil
        add(key, at: index)
    }
}

extension ImportCandidate {
    func reported(_ reason: String) -> ReportedRow {
        ReportedRow(position: position, server: server.display, account: account, reason: reason)
    }
}
