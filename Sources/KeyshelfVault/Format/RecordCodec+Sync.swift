import Foundation
import KeyshelfCrypto

/// The sync fields of a record (docs/vault-format.md, tags 24 and 25):
///
/// ```
/// changeStamp     := u64 wallMilliseconds, u32 counter, u32 node   (16 bytes, little-endian)
/// passwordHistory := varint(count) entry{count}
/// entry           := 8-byte date (as creationDate), varint(byteCount), password bytes
/// ```
/// A stamp equal to the record's fallback (`ChangeStamp.fallback`: node 0) is
/// omitted, so a vault written before stamps keeps its bytes.
extension RecordCodec {
    static let changeStampByteCount = 16

    private static func writesStamp(_ item: UnsafeMutablePointer<Item>) -> Bool {
        guard let stamp = item.pointee.changeStamp else { return false }
        return stamp.node != 0 || stamp.counter != 0 || stamp.wallMilliseconds != ChangeStamp.milliseconds(item.pointee.modificationDate)
    }

    /// Writes tags 24 and 25. With `storage` (the buffer `w` writes into) the
    /// history's passwords are pointed at their copies there; nil when `w` only counts.
    static func writeSyncFields(_ item: UnsafeMutablePointer<Item>, to w: inout Writer, storage: SecureBytes?) {
        if writesStamp(item), let stamp = item.pointee.changeStamp {
            w.field(.changeStamp, byteCount: changeStampByteCount)
            withUnsafeBytes(of: stamp.wallMilliseconds.littleEndian) { w.bytes($0) }
            withUnsafeBytes(of: stamp.counter.littleEndian) { w.bytes($0) }
            withUnsafeBytes(of: stamp.node.littleEndian) { w.bytes($0) }
        }
        guard !item.pointee.passwordHistory.isEmpty else { return }
        var history = item.pointee.passwordHistory
        // The value's length prefix comes from the same entry writer, counting.
        var sizing = Writer.counting
        writeHistory(&history, to: &sizing, storage: nil)
        w.field(.passwordHistory, byteCount: sizing.offset)
        writeHistory(&history, to: &w, storage: storage)
        if storage != nil { item.pointee.passwordHistory = history }
    }

    private static func writeHistory(_ history: inout [PasswordHistoryEntry], to w: inout Writer, storage: SecureBytes?) {
        w.varint(UInt64(history.count))
        for i in history.indices {
            let bits = history[i].replaced.timeIntervalSinceReferenceDate.bitPattern.littleEndian
            withUnsafeBytes(of: bits) { w.bytes($0) }
            let count = history[i].password.byteCount
            w.varint(UInt64(count))
            let start = w.offset
            history[i].password.withUnsafeBytes { w.bytes($0) }
            if let storage { history[i].password = Secret(storage: storage, range: start..<(start + count)) }
        }
    }
}

extension RecordCodec.Reader {
    func changeStamp(_ range: Range<Int>) throws -> ChangeStamp {
        guard range.count == RecordCodec.changeStampByteCount else {
            throw RecordCodec.DecodeError(reason: "change stamp of \(range.count) bytes")
        }
        let at = range.lowerBound
        return ChangeStamp(wallMilliseconds: buffer.loadLittleEndian(UInt64.self, at: at),
                           counter: buffer.loadLittleEndian(UInt32.self, at: at + 8),
                           node: buffer.loadLittleEndian(UInt32.self, at: at + 12),
                           issuedFor: Date(timeIntervalSinceReferenceDate: 0))
    }

    /// The entries of a tag-25 value; each password a slice of `storage`.
    func passwordHistory(_ range: Range<Int>, storage: SecureBytes) throws -> [PasswordHistoryEntry] {
        var r = RecordCodec.Reader(buffer: buffer, offset: range.lowerBound, end: range.upperBound)
        let count = try r.varint()
        guard count <= UInt64(range.count) else { throw RecordCodec.DecodeError(reason: "password history count \(count) exceeds its field") }
        var entries: [PasswordHistoryEntry] = []
        for _ in 0..<count {
            guard r.end - r.offset >= 8 else { throw RecordCodec.DecodeError(reason: "password history entry runs past its field") }
            let replaced = try r.date(r.offset..<(r.offset + 8))
            r.offset += 8
            let length = try r.varint()
            guard length <= UInt64(r.end - r.offset) else { throw RecordCodec.DecodeError(reason: "password history entry runs past its field") }
            entries.append(PasswordHistoryEntry(password: Secret(storage: storage, range: r.offset..<(r.offset + Int(length))), replaced: replaced))
            r.offset += Int(length)
        }
        guard r.offset == r.end else { throw RecordCodec.DecodeError(reason: "bytes after the password history") }
        return entries
    }
}
