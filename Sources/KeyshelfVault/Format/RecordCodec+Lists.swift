import Foundation
import KeyshelfCrypto

/// Record lists (`varint(count) record*`, RecordCodec's grammar) handled as
/// bytes: the appendices' joins and diffs, and the positions of records.
extension RecordCodec {
    // MARK: Record lists (appendices)

    /// The item count of `payload` (`varint(count) record*`).
    /// - Throws: `DecodeError` when the count is unreadable.
    static func itemCount(_ payload: SecureBytes) throws -> Int {
        Int(clamping: try payload.withUnsafeBytes { try recordList($0) }.count)
    }

    /// The item count and the offset of the first record of `payload`.
    /// - Throws: `DecodeError` when the count is unreadable.
    private static func recordList(_ payload: UnsafeRawBufferPointer) throws -> (count: UInt64, recordsStart: Int) {
        var r = Reader(buffer: payload)
        let count = try r.varint()
        return (count, r.offset)
    }

    /// The payloads `lists` (each `varint(count) record*`) as one payload:
    /// the counts summed, the records in order. Decoding it checks the records.
    /// Each list is released once copied, so that a vault of many segments
    /// never holds its plaintext twice (18 MB at 100k credentials); `lists`
    /// is empty afterwards.
    /// - Throws: `DecodeError` when a count is unreadable or too large.
    static func join(_ lists: inout [SecureBytes]) throws -> SecureBytes {
        var count: UInt64 = 0
        var total = 0
        var starts: [Int] = []
        for list in lists {
            let (n, start) = try list.withUnsafeBytes { try recordList($0) }
            guard n <= UInt64(list.byteCount) else { throw DecodeError(reason: "item count \(n) exceeds the payload") }
            count += n
            total += list.byteCount - start
            starts.append(start)
        }
        let out = SecureBytes(byteCount: varintByteCount(count) + total)
        out.withUnsafeMutableBytes { buffer in
            var w = Writer(base: buffer.baseAddress!)
            w.varint(count)
            for start in starts {
                let list = lists.removeFirst()
                list.withUnsafeBytes { w.bytes(UnsafeRawBufferPointer(rebasing: $0[start...])) }
            }
        }
        return out
    }

    /// The records of `new` that differ from `old` (both `varint(count)
    /// record*`), as a payload of their own, when `new` is `old` with some
    /// records changed in place (the same id at the same position) and
    /// possibly records added after its last one; nil for any other change
    /// (records removed, reordered, or a position holding another id), and
    /// nil when another record of `new` has the id of a changed or added one:
    /// a reader folds an appendix's records by id onto the first record with
    /// it, not by position. `replaces` says whether any record of `old`
    /// changed (an appendix that replaces records needs format v3). Records
    /// are compared with `memcmp`; only differing ones are parsed whole.
    static func changedRecords(from old: SecureBytes, to new: SecureBytes) -> (records: SecureBytes, replaces: Bool)? {
        old.withUnsafeBytes { o in
            new.withUnsafeBytes { n -> (records: SecureBytes, replaces: Bool)? in
                guard let (oldCount, oldStart) = try? recordList(o), let (newCount, newStart) = try? recordList(n),
                      newCount >= oldCount else { return nil }
                var oldReader = Reader(buffer: o, offset: oldStart), newReader = Reader(buffer: n, offset: newStart)
                var changed: [Range<Int>] = []
                for _ in 0..<oldCount {
                    guard let before = try? oldReader.record(), let after = try? newReader.record() else { return nil }
                    if before.count == after.count, memcmp(o.baseAddress! + before.lowerBound, n.baseAddress! + after.lowerBound, before.count) == 0 {
                        continue
                    }
                    guard let id = recordID(o, before), let same = recordID(n, after),
                          memcmp(id.baseAddress!, same.baseAddress!, 16) == 0 else { return nil }
                    changed.append(after)
                }
                let replaces = !changed.isEmpty
                for _ in oldCount..<newCount {
                    guard let after = try? newReader.record() else { return nil }
                    changed.append(after)
                }
                guard !changed.isEmpty, haveOwnIDs(changed, in: n, recordsAt: newStart, count: newCount) else { return nil }
                return (list(of: changed.map { (new, $0) }), replaces)
            }
        }
    }

    /// A record list of the records whose fields are `records` (each a
    /// record list's buffer and the range of the record's fields), in that order.
    static func list(of records: [(list: SecureBytes, fields: Range<Int>)]) -> SecureBytes {
        let byteCount = records.reduce(varintByteCount(UInt64(records.count))) { $0 + varintByteCount(UInt64($1.fields.count)) + $1.fields.count }
        let out = SecureBytes(byteCount: byteCount)
        out.withUnsafeMutableBytes { buffer in
            var w = Writer(base: buffer.baseAddress!)
            w.varint(UInt64(records.count))
            for record in records {
                w.varint(UInt64(record.fields.count))
                record.list.withUnsafeBytes { w.bytes(UnsafeRawBufferPointer(rebasing: $0[record.fields])) }
            }
        }
        return out
    }

    /// The field ranges of every record of `list`, in order.
    /// - Throws: `DecodeError` when `list` is not a record list.
    static func recordRanges(_ list: SecureBytes) throws -> [Range<Int>] {
        try list.withUnsafeBytes { buffer in
            var r = Reader(buffer: buffer)
            let count = try r.varint()
            guard count <= UInt64(buffer.count) else { throw DecodeError(reason: "item count \(count) exceeds the payload") }
            var ranges: [Range<Int>] = []
            ranges.reserveCapacity(Int(count))
            for _ in 0..<count { ranges.append(try r.record()) }
            guard r.offset == r.end else { throw DecodeError(reason: "bytes after the last record") }
            return ranges
        }
    }

    /// Whether each record `changed` (field ranges of `buffer`, a record list
    /// of `count` records from offset `start`) has an id that no other record
    /// of the list has. One pass over the ids. An edit changes one or two
    /// records: their ids are compared as bytes, which costs less than
    /// hashing every id of the store; a merge's many are hashed.
    private static func haveOwnIDs(_ changed: [Range<Int>], in buffer: UnsafeRawBufferPointer, recordsAt start: Int, count: UInt64) -> Bool {
        var few: [UnsafeRawBufferPointer] = []
        var many = Set<UUID>()
        let hashed = changed.count > 8
        func uuid(_ bytes: UnsafeRawBufferPointer) -> UUID {
            var raw: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
            withUnsafeMutableBytes(of: &raw) { $0.copyMemory(from: bytes) }
            return UUID(uuid: raw)
        }
        func isChanged(_ id: UnsafeRawBufferPointer) -> Bool {
            hashed ? many.contains(uuid(id)) : few.contains { memcmp($0.baseAddress!, id.baseAddress!, 16) == 0 }
        }
        for range in changed {
            guard let id = recordID(buffer, range), !isChanged(id) else { return false }
            if hashed { many.insert(uuid(id)) } else { few.append(id) }
        }
        var r = Reader(buffer: buffer, offset: start)
        var holders = 0
        for _ in 0..<count {
            guard let range = try? r.record() else { return false }
            if let id = recordID(buffer, range), isChanged(id) { holders += 1 }
        }
        return holders == changed.count
    }

    /// The 16 bytes of the id field of the record whose fields are `buffer[range]`; nil when it has none.
    static func recordID(_ buffer: UnsafeRawBufferPointer, _ range: Range<Int>) -> UnsafeRawBufferPointer? {
        var r = Reader(buffer: buffer, offset: range.lowerBound, end: range.upperBound)
        while r.offset < r.end {
            guard let tag = try? r.byte(), let length = try? r.varint(), length <= UInt64(r.end - r.offset) else { return nil }
            let field = r.offset..<(r.offset + Int(length))
            r.offset = field.upperBound
            if tag == Tag.id.rawValue, field.count == 16 { return UnsafeRawBufferPointer(rebasing: buffer[field]) }
        }
        return nil
    }
}
