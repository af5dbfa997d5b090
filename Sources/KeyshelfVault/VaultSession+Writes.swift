import Foundation
import KeyshelfCrypto

/// The session's writes of items: `modify` (a locked read-modify-write that
/// writes only the records an edit changed, as an appendix when it can) and
/// `add(to:)` (one item after a store's last).
extension VaultSession {
    /// A locked read-modify-write: takes the exclusive `flock`, re-reads what
    /// changed on disk, runs `body` on the current contents, then saves
    /// atomically only the files whose encoded items changed. When `body`
    /// throws, nothing is written. `body` must not call back into this session.
    /// - Throws: whatever `body` throws; `VaultError.io` when `body` put a
    ///   `…ThisDeviceOnly` item into `shared` (DESIGN §2: it never leaves this
    ///   device); `.changedOnDisk` when a file was replaced outside the lock
    ///   meanwhile; `.locked`; `.io`, also when another process holds the
    ///   lock longer than `VaultDirectory.lockTimeout`.
    @discardableResult
    public func modify<T>(_ body: (inout VaultContents) throws -> T) throws -> T {
        try modify(since: nil) { contents, _ in try body(&contents) }
    }

    /// `modify`, telling `body` whether the contents it edits are still the
    /// ones `contents()` gave at `revision` (read after it): nothing re-read
    /// from disk, saved or moved since. Positions found in those contents
    /// (an index of them) then hold in the contents `body` edits.
    /// - Throws: as `modify`.
    @discardableResult
    public func modify<T>(since revision: Int?, _ body: (inout VaultContents, _ unchanged: Bool) throws -> T) throws -> T {
        try lockedWrite { state in
            var contents = VaultContents(local: state.local.items, shared: state.shared.items)
            // A file saved by this session holds no device-only item: only one read from disk is looked through.
            let quarantine = state.shared.mayHoldForeignItems ? ForeignItems.quarantine(&contents, file: directory.path(of: .shared)) : nil
            let unchanged = revision == itemsRevision && quarantine == nil
            // Hand the arrays over, so that the body edits a large vault in
            // place instead of copying it; the record lists still hold the old state.
            for store in Store.allCases { state[store].items = [] }
            let result: T
            var changed: [Store: [Int]?] = [:]
            var bounds: [Store: ChangeStamp?] = [:]
            do {
                result = try body(&contents, unchanged)
                let now = clockSource()
                for store in Store.allCases {
                    // Only the records whose origin is gone can have changed, so only they are checked and stamped.
                    let positions = state[store].changedPositions(in: contents[store])
                    if store == .shared, let index = positions.map({ $0.first { contents.shared[$0].accessible.isThisDeviceOnly } })
                        ?? contents.shared.firstIndex(inPlace: { $0.pointee.accessible.isThisDeviceOnly }) {
                        throw thisDeviceOnlyError(contents.shared[index])
                    }
                    if let positions, case let .some(bound) = state[store].stampBound {
                        bounds[store] = ChangeStamper.stamp(&contents[store], at: positions, after: bound, now: now)
                    } else {
                        bounds[store] = ChangeStamper.stamp(&contents[store], now: now)
                    }
                    changed[store] = positions
                }
            } catch {
                for store in Store.allCases { Self.restoreItems(&state[store]) }
                throw error
            }
            // Shared first, then local; each file is atomic on its own, the pair is not. Items moved
            // out of shared.vault are saved in local.vault first, so that no failure loses them.
            let order: [Store] = quarantine == nil ? [.shared, .local] : [.local, .shared]
            for (index, store) in order.enumerated() {
                var items = contents[store]
                contents[store] = []
                let edit = state.withFile(store) { $0.edit(of: &items, at: changed[store] ?? nil) }
                do {
                    switch edit {
                    case .none:
                        state.withFile(store) { $0.items = items }
                    case let .records(list, positions, replaces):
                        // Only the records the body changed or added were encoded: an appendix when the file takes one.
                        if try state.withFile(store, { try Self.append(list, replacing: replaces, store: store, file: &$0, directory: directory.path) }) {
                            state.withFile(store) { $0.adopt(&items, patch: list, at: positions) }
                        } else {
                            try replaceFile(&items, store: store, file: &state[store])
                        }
                        itemsRevision += 1
                    case .whole:
                        if try saveWhole(&items, store: store, state: &state) { itemsRevision += 1 }
                    }
                    state[store].stampBound = bounds[store]
                } catch {
                    state[store].needsReload = true
                    if index == 0 { Self.restoreItems(&state[order[1]]) }
                    throw error
                }
            }
            state.shared.mayHoldForeignItems = false
            unreported += quarantine.map { [$0] } ?? []
            return result
        }
    }

    /// Encodes `items` whole (a new origin generation) and replaces `store`'s file with them.
    private func replaceFile(_ items: inout [Item], store: Store, file: inout FileState) throws {
        let generation = RecordOrigin.nextGeneration()
        unreported += try Self.save(items, plaintext: RecordCodec.encode(&items, generation: generation), generation: generation,
                                    store: store, file: &file, directory: directory.path, rotateBackups: !deferRotation)
    }

    /// Saves `items`, `store`'s items after a change that `FileState.edit`
    /// could not narrow to a few records: encodes them whole and writes the
    /// records that differ as an appendix when the file takes one, else the
    /// whole file.
    /// - Returns: false when the encoding is the file's own (nothing written).
    private func saveWhole(_ items: inout [Item], store: Store, state: inout State) throws -> Bool {
        let generation = RecordOrigin.nextGeneration()
        let plaintext = RecordCodec.encode(&items, generation: generation)
        let old = state.withFile(store) { $0.wholePlaintext() }
        if plaintext.hasSameBytes(as: old) {
            state.withFile(store) { $0.adopt(items, plaintext: plaintext, generation: generation) }
            return false
        }
        if let change = RecordCodec.changedRecords(from: old, to: plaintext),
           try state.withFile(store, { try Self.append(change.records, replacing: change.replaces, store: store,
                                                        file: &$0, directory: directory.path) }) {
            state.withFile(store) { $0.adopt(items, plaintext: plaintext, generation: generation) }
        } else {
            unreported += try Self.save(items, plaintext: plaintext, generation: generation, store: store, file: &state[store],
                                        directory: directory.path, rotateBackups: !deferRotation)
        }
        return true
    }

    /// A locked addition at the end of one store: takes the exclusive
    /// `flock`, re-reads what changed on disk, lets `body` read the current
    /// contents and return the item to add after `store`'s last one (nil: no
    /// plain addition; nothing is written), and saves it. Unlike `modify`,
    /// only that item is encoded: it goes into an appendix when the file can
    /// take one and no item of the store has its id, else the whole file is
    /// replaced as `modify` does. `body`
    /// must not call back into this session.
    /// - Returns: whether the item was added.
    /// - Throws: whatever `body` throws; the errors of `modify` (a
    ///   `…ThisDeviceOnly` item for `shared` included).
    public func add(to store: Store, _ body: (VaultContents) throws -> Item?) throws -> Bool {
        try lockedWrite { state in
            guard var item = try body(VaultContents(local: state.local.items, shared: state.shared.items)) else { return false }
            if store == .shared, item.accessible.isThisDeviceOnly { throw thisDeviceOnlyError(item) }
            ChangeStamper.stamp(&item, addedTo: state[store].items, now: clockSource())
            var added = [item]
            let records = RecordCodec.encode(&added)
            do {
                try state.withFile(store) { file in
                    // An appendix's record with an earlier record's id would be folded onto it by every reader.
                    let id = item.id
                    let isNew = file.items.withUnsafeBufferPointer { items in !items.indices.contains { items[$0].id == id } }
                    let appended = isNew ? try Self.append(records, replacing: false, store: store, file: &file, directory: directory.path) : false
                    var items = file.items
                    file.items = []
                    items.append(contentsOf: added)
                    if appended {
                        file.adopt(&items, patch: records, at: [items.count - 1])
                    } else {
                        try replaceFile(&items, store: store, file: &file)
                    }
                    // The bound stays at least every stamp of the store: the next edit is stamped after this item.
                    if case let .some(bound) = file.stampBound, let stamp = added[added.count - 1].changeStamp,
                       bound.map({ $0.precedes(stamp) }) ?? true {
                        file.stampBound = .some(stamp)
                    }
                }
            } catch {
                state.withFile(store) { $0.needsReload = true }
                throw error
            }
            itemsRevision += 1
            return true
        }
    }

    private func thisDeviceOnlyError(_ item: Item) -> VaultError {
        VaultError(.io, file: directory.path(of: .shared), reason: "refused to save: the item for \(item.server.isEmpty ? item.service : item.server) (account \(item.account)) is \(item.accessible) and must stay in the local store; nothing was written")
    }

    /// Rebuilds `file.items` from its plaintext after they were handed to a body that failed.
    static func restoreItems(_ file: inout FileState) {
        let plaintext = file.wholePlaintext()
        if let items = try? RecordCodec.decode(plaintext, generation: file.generation) {
            file.adopt(items, plaintext: plaintext, generation: file.generation)
        } else {
            file.needsReload = true
        }
    }
}
