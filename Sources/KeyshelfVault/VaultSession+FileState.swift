import Foundation
import KeyshelfCrypto

extension VaultSession {
    /// One vault file as known to this session.
    struct FileState {
        /// The last header read or written (a template when the file is absent).
        var header: VaultHeader
        /// Argon2id output that unwraps `header.wrappedKey`.
        var passwordKey: SecureBytes
        var vaultKey: SecureBytes
        /// The version on disk that `items` came from; nil when there is no file.
        var identity: FileIdentity?
        /// The items; `items[i]` is record `i` of the file, and while its
        /// `recordOrigin` is record `i` of `generation`, byte for byte the
        /// record at `records[i]`.
        var items: [Item]
        /// Record lists (`varint(count) record*`) holding the records of
        /// `items`: the file's whole encoding as read or saved, then one list
        /// per appendix written since. Passwords are slices of these buffers.
        private var lists: [SecureBytes]
        /// Where each record is in `lists`, by position; nil when the
        /// plaintext is no record list (only a test saves such bytes), so every
        /// change is saved whole.
        private var records: [RecordLocation]?
        /// The list number of the items' `recordOrigin`s (`RecordOrigin.nextGeneration`).
        private(set) var generation: UInt64
        /// At least the largest change stamp of the records (the hybrid
        /// clock's last reading, `ChangeStamper`), once a save found it; nil
        /// when not known since the file was read.
        var stampBound: ChangeStamp??
        /// Whether no two records share an id, once checked; nil when not
        /// checked since the list was read or saved whole.
        private var idsAreUnique: Bool?
        /// Read from disk and not saved since: the file may hold
        /// `…ThisDeviceOnly` items another program put there (`ForeignItems`).
        var mayHoldForeignItems = false
        /// Set when `items` may no longer match the disk (a failed write): the next access re-reads the file.
        var needsReload = false
        /// The MAC appendices authenticate (`VaultFile.Opened.payloadTag`: the
        /// manifest's in v3); empty for no file or a v1 file.
        var payloadTag: [UInt8] = []
        /// Appendices in the payload on disk.
        var appendixCount = 0
        /// Bytes of those appendices, length prefixes included.
        var appendixByteCount = 0
        /// Bytes followed the announced payload when the file was read (an
        /// append unfinished or under way): the file is read again next time,
        /// whatever its identity says.
        var hasUnfinishedAppend = false

        /// One record's place: list `list` of `lists`, bytes `start..<end` of its fields.
        struct RecordLocation {
            var list: UInt32
            var start: UInt32
            var end: UInt32
        }

        /// The state of a file read from disk.
        init(header: VaultHeader, passwordKey: SecureBytes, vaultKey: SecureBytes, identity: FileIdentity, opened: VaultFile.Opened) {
            self.header = header
            self.passwordKey = passwordKey
            self.vaultKey = vaultKey
            self.identity = identity
            self.items = opened.items
            self.lists = [opened.plaintext]
            self.records = Self.locations(of: opened.plaintext, list: 0)
            self.generation = opened.generation
            self.mayHoldForeignItems = true
            self.payloadTag = opened.payloadTag
            self.appendixCount = opened.appendixCount
            self.appendixByteCount = opened.appendixByteCount
            self.hasUnfinishedAppend = opened.hasUnfinishedAppend
        }

        /// The state of a file not on disk yet: no items.
        init(header: VaultHeader, passwordKey: SecureBytes, vaultKey: SecureBytes) {
            var none = [Item]()
            self.header = header
            self.passwordKey = passwordKey
            self.vaultKey = vaultKey
            self.identity = nil
            self.items = []
            self.generation = RecordOrigin.nextGeneration()
            self.lists = [RecordCodec.encode(&none)]
            self.records = []
        }

        /// The encoding of `items` as one record list: the file's encoding
        /// with the appendices written since folded in (copied once, then kept).
        mutating func wholePlaintext() -> SecureBytes {
            guard lists.count > 1, let locations = records else { return lists[0] }
            let whole = RecordCodec.list(of: locations.map { (lists[Int($0.list)], Int($0.start)..<Int($0.end)) })
            lists = [whole]
            records = Self.locations(of: whole, list: 0)
            return whole
        }

        /// Records that `items` and `plaintext` (their whole encoding, made
        /// with `generation`'s origins) are current.
        mutating func adopt(_ items: [Item], plaintext: SecureBytes, generation: UInt64) {
            self.items = items
            self.lists = [plaintext]
            self.records = Self.locations(of: plaintext, list: 0)
            self.generation = generation
            idsAreUnique = nil
        }

        /// Records that `items` (taken, leaving `items` empty) are current,
        /// the records at `positions` (ascending) being those of `list`, just
        /// written as an appendix; `items` changed nowhere else. Positions
        /// from `records.count` on are records added at the end.
        mutating func adopt(_ items: inout [Item], patch list: SecureBytes, at positions: [Int]) {
            let number = UInt32(lists.count)
            lists.append(list)
            let added = Self.locations(of: list, list: number)
            // A new generation: a copy of an item taken before this patch (a snapshot written back
            // later) must not pass for the record now at its position. The items still records move to it.
            let old = generation
            generation = RecordOrigin.nextGeneration()
            let new = generation
            items.withUnsafeMutableBufferPointer { items in
                for i in items.indices where items[i].recordOrigin.isRecord(i, of: old) {
                    items[i].recordOrigin = RecordOrigin(generation: new, position: i)
                }
            }
            for (position, location) in zip(positions, added ?? []) where records != nil {
                if position < records!.count { records![position] = location } else { records!.append(location) }
                items[position].recordOrigin = RecordOrigin(generation: generation, position: position)
            }
            if added == nil { records = nil }
            self.items = []
            swap(&self.items, &items)
        }

        /// What saving `items` (this file's items after a change) must write.
        enum Edit {
            /// Nothing: every record is as it was.
            case none
            /// The records at `positions` (ascending; from `records.count`
            /// on, added at the end), encoded as `list`: an appendix when the
            /// file takes one (`replaces` says whether any record was there before).
            case records(SecureBytes, positions: [Int], replaces: Bool)
            /// Any other change (records removed, reordered, an id moved, most
            /// records changed): the whole store is encoded.
            case whole
        }

        /// The positions of `items` (this file's items after a change)
        /// whose record may have changed, ascending, found by their
        /// `recordOrigin`s in one pass; nil when items were removed, so that
        /// positions say nothing (the change is saved whole).
        func changedPositions(in items: [Item]) -> [Int]? {
            guard let records, items.count >= records.count else { return nil }
            let generation = generation
            return items.withUnsafeBufferPointer { items in
                items.indices.filter { !items[$0].recordOrigin.isRecord($0, of: generation) }
            }
        }

        /// What saving `items` must write, `positions` being
        /// `changedPositions(in: items)`: only those records are encoded, as
        /// `VaultSession.add(to:)` does for an addition. Items whose record
        /// bytes did not change get their origin back. The rule is
        /// `RecordCodec.changedRecords`': records changed in place (same id at
        /// the same position) and added at the end, each id held by one
        /// record of the store, since readers fold an appendix by id.
        mutating func edit(of items: inout [Item], at positions: [Int]?) -> Edit {
            guard let records, var positions else { return .whole }
            guard !positions.isEmpty else { return .none }
            // Encoding most of the store apart and then whole would do the work twice.
            guard positions.count * 2 <= max(items.count, 16) else { return .whole }
            var changed = positions.map { items[$0] }
            let list = RecordCodec.encode(&changed)
            guard let fields = try? RecordCodec.recordRanges(list) else { return .whole }
            var kept: [Int] = []
            for (k, position) in positions.enumerated() where position < records.count {
                let old = records[position]
                let same: Bool? = lists[Int(old.list)].withUnsafeBytes { o in
                    list.withUnsafeBytes { n in
                        let before = Int(old.start)..<Int(old.end)
                        guard let id = RecordCodec.recordID(o, before), let newID = RecordCodec.recordID(n, fields[k]),
                              memcmp(id.baseAddress!, newID.baseAddress!, 16) == 0 else { return nil }
                        return before.count == fields[k].count && memcmp(o.baseAddress! + before.lowerBound, n.baseAddress! + fields[k].lowerBound, before.count) == 0
                    }
                }
                guard let same else { return .whole }
                if same { kept.append(k) }
            }
            for k in kept { items[positions[k]].recordOrigin = RecordOrigin(generation: generation, position: positions[k]) }
            let written = positions.indices.filter { !kept.contains($0) }
            guard !written.isEmpty else { return .none }
            // A record replaced in place keeps its position's id, so it is held once when the old ids were;
            // an added record's id is looked for in the store.
            let added = written.filter { positions[$0] >= records.count }.map { changed[$0].id }
            if idsAreUnique == nil { idsAreUnique = Self.haveDistinctIDs(items, count: records.count) }
            guard idsAreUnique == true, added.isEmpty || Self.eachHeldOnce(added, in: items) else { return .whole }
            // The encoded copies go back: their passwords are slices of `list`.
            for k in written { items[positions[k]] = changed[k] }
            positions = written.map { positions[$0] }
            return .records(kept.isEmpty ? list : RecordCodec.list(of: written.map { (list, fields[$0]) }),
                            positions: positions, replaces: positions.contains { $0 < records.count })
        }

        /// Whether the first `count` items have `count` different ids.
        private static func haveDistinctIDs(_ items: [Item], count: Int) -> Bool {
            var ids = Set<UUID>(minimumCapacity: count)
            return items.withUnsafeBufferPointer { items in
                items[..<count].indices.allSatisfy { ids.insert(items[$0].id).inserted }
            }
        }

        /// Whether each of `ids` is the id of exactly one item of `items`.
        private static func eachHeldOnce(_ ids: [UUID], in items: [Item]) -> Bool {
            guard Set(ids).count == ids.count else { return false }
            var holders = 0
            items.withUnsafeBufferPointer { items in
                if ids.count <= 8 {
                    for index in items.indices where ids.contains(items[index].id) { holders += 1 }
                } else {
                    let wanted = Set(ids)
                    for index in items.indices where wanted.contains(items[index].id) { holders += 1 }
                }
            }
            return holders == ids.count
        }

        /// The field ranges of every record of `list`, as locations in list number `list`.
        private static func locations(of plaintext: SecureBytes, list: UInt32) -> [RecordLocation]? {
            try? RecordCodec.recordRanges(plaintext).map { RecordLocation(list: list, start: UInt32($0.lowerBound), end: UInt32($0.upperBound)) }
        }
    }
}
