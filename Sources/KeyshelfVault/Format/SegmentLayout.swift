import Foundation
import KeyshelfCrypto

/// How a v3 whole-file save lays the records out (docs/vault-format.md,
/// "Segments (v3)"): base segments of up to `targetSegmentByteCount`
/// plaintext bytes each, then the manifest listing their tags. A base
/// segment of the file being replaced whose records are unchanged, in the
/// same order, is *kept*: its ciphertext is copied as it is, so git stores
/// no new bytes for it; the other records are sealed afresh.
struct SegmentLayout {
    /// One base segment of the new file.
    enum Piece {
        /// Sealed afresh: `count` records, bytes `records` of the new plaintext.
        case fresh(records: Range<Int>, count: Int)
        /// Copied: a secretstream of the old file (`source`), without its length prefix.
        case kept(Range<Int>)
    }

    /// Plaintext bytes a fresh base segment holds at most (one 64 KiB chunk),
    /// unless a single record is larger.
    static let targetSegmentByteCount = 64 * 1024

    let pieces: [Piece]
    /// The old file's bytes that `kept` pieces point into.
    let source: [UInt8]
    /// Bytes of the payload: every piece and the manifest, with their length prefixes.
    let payloadByteCount: Int

    /// A base segment of an opened v3 file: its ciphertext range (after its
    /// length prefix) and its decrypted record list.
    struct OldSegment {
        let ciphertext: Range<Int>
        let records: SecureBytes
    }

    /// The layout of `plaintext` (`varint(count) record*`, the encoding of
    /// the items to save), keeping each segment of `old` (from `source`)
    /// whose record bytes appear unchanged and in order in `plaintext`.
    init(_ plaintext: SecureBytes, chunkByteCount: Int, reusing old: [OldSegment] = [], from source: [UInt8] = []) {
        let records = plaintext.withUnsafeBytes { Self.recordRanges($0) }
        var pieces: [Piece] = []
        var placed = 0
        func addFresh(upTo end: Int) {
            var start = placed
            while start < end {
                var stop = start + 1
                while stop < end, records[stop].upperBound - records[start].lowerBound <= Self.targetSegmentByteCount { stop += 1 }
                pieces.append(.fresh(records: records[start].lowerBound..<records[stop - 1].upperBound, count: stop - start))
                start = stop
            }
            placed = end
        }
        plaintext.withUnsafeBytes { new in
            for segment in old {
                segment.records.withUnsafeBytes { kept in
                    // A small segment is sealed again with its neighbours instead, so compactions do not pile up small segments.
                    guard kept.count >= Self.targetSegmentByteCount / 4, let (count, start) = Self.list(kept), count > 0,
                          let at = Self.position(of: kept, recordsAt: start, count: count, in: new, records, from: placed) else { return }
                    addFresh(upTo: at)
                    pieces.append(.kept(segment.ciphertext))
                    placed = at + count
                }
            }
        }
        addFresh(upTo: records.count)
        if pieces.isEmpty {
            // No records: one segment holding the empty list.
            let start = plaintext.byteCount
            pieces.append(.fresh(records: start..<start, count: 0))
        }
        self.pieces = pieces
        self.source = source
        var total = VaultFile.segmentPrefixByteCount + SecretStream.sealedByteCount(
            plaintextByteCount: Self.manifestByteCount(pieces.count), chunkByteCount: chunkByteCount)
        for piece in pieces {
            switch piece {
            case let .fresh(range, count):
                total += VaultFile.segmentPrefixByteCount + SecretStream.sealedByteCount(
                    plaintextByteCount: RecordCodec.varintByteCount(UInt64(count)) + range.count, chunkByteCount: chunkByteCount)
            case .kept(let range):
                total += VaultFile.segmentPrefixByteCount + range.count
            }
        }
        payloadByteCount = total
    }

    /// Seals the layout into `output`: each base segment (its length, then
    /// its secretstream), then the manifest (its length with
    /// `VaultFile.manifestFlag`, then its secretstream).
    /// - Returns: the manifest's last 16 bytes, which appendices authenticate.
    /// - Throws: `CryptoError`; whatever `output` throws.
    func seal(_ plaintext: SecureBytes, header: VaultHeader, vaultKey: SecureBytes, output: (UnsafeRawBufferPointer) throws -> Void) throws -> [UInt8] {
        let chunk = Int(header.chunkByteCount)
        var tags: [UInt8] = []
        tags.reserveCapacity(pieces.count * VaultFile.payloadTagByteCount)
        func prefix(_ length: Int, flag: UInt32 = 0) throws {
            var bytes = [UInt8]()
            bytes.appendLittleEndian(UInt32(length) | flag)
            try bytes.withUnsafeBytes { try output($0) }
        }
        func sealed(_ list: SecureBytes, associatedData: [UInt8]) throws -> [UInt8] {
            var tag: [UInt8] = []
            try SecretStream.seal(list, key: vaultKey, chunkByteCount: chunk, associatedData: associatedData) { piece in
                // Every piece (stream header, chunk) is longer than a MAC; the last one ends with the FINAL chunk's.
                tag = Array(piece.suffix(VaultFile.payloadTagByteCount))
                try output(piece)
            }
            return tag
        }
        for piece in pieces {
            switch piece {
            case let .fresh(range, count):
                let list = plaintext.withUnsafeBytes { Self.recordList(count: count, UnsafeRawBufferPointer(rebasing: $0[range])) }
                try prefix(SecretStream.sealedByteCount(plaintextByteCount: list.byteCount, chunkByteCount: chunk))
                tags += try sealed(list, associatedData: VaultFile.baseSegmentAssociatedData(header))
            case .kept(let range):
                try prefix(range.count)
                try source.withUnsafeBytes { try output(UnsafeRawBufferPointer(rebasing: $0[range])) }
                tags += source[(range.upperBound - VaultFile.payloadTagByteCount)..<range.upperBound]
            }
        }
        let manifest = SecureBytes(byteCount: Self.manifestByteCount(pieces.count))
        manifest.withUnsafeMutableBytes { buffer in
            withUnsafeBytes(of: UInt32(pieces.count).littleEndian) { buffer.copyMemory(from: $0) }
            tags.withUnsafeBytes { (buffer.baseAddress! + 4).copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
        }
        try prefix(SecretStream.sealedByteCount(plaintextByteCount: manifest.byteCount, chunkByteCount: chunk), flag: VaultFile.manifestFlag)
        return try sealed(manifest, associatedData: VaultFile.manifestAssociatedData(header))
    }

    /// The manifest's plaintext size: u32 segment count, then a 16-byte tag per segment.
    static func manifestByteCount(_ segmentCount: Int) -> Int {
        4 + segmentCount * VaultFile.payloadTagByteCount
    }

    /// `varint(count)` followed by `records`, in secure memory.
    private static func recordList(count: Int, _ records: UnsafeRawBufferPointer) -> SecureBytes {
        let out = SecureBytes(byteCount: RecordCodec.varintByteCount(UInt64(count)) + records.count)
        out.withUnsafeMutableBytes { buffer in
            var w = RecordCodec.Writer(base: buffer.baseAddress!)
            w.varint(UInt64(count))
            w.bytes(records)
        }
        return out
    }

    /// Each record of `payload` (its size varint included), in order. The
    /// payload is this process's own encoding, so it parses.
    private static func recordRanges(_ payload: UnsafeRawBufferPointer) -> [Range<Int>] {
        guard let (count, start) = list(payload) else { return [] }
        var r = RecordCodec.Reader(buffer: payload, offset: start)
        var out: [Range<Int>] = []
        out.reserveCapacity(count)
        for _ in 0..<count {
            let begin = r.offset
            guard (try? r.record()) != nil else { break }
            out.append(begin..<r.offset)
        }
        return out
    }

    /// The count and first record offset of a record list.
    private static func list(_ payload: UnsafeRawBufferPointer) -> (count: Int, start: Int)? {
        var r = RecordCodec.Reader(buffer: payload)
        guard let count = try? r.varint(), count <= UInt64(payload.count) else { return nil }
        return (Int(count), r.offset)
    }

    /// Where the `count` records of an old segment (`kept[start...]`) start
    /// among the new records, at or after `from`: at `from` when nothing
    /// before them changed, a little later after records were added before
    /// them. Compared byte for byte; nil when they are not there unchanged.
    private static func position(of kept: UnsafeRawBufferPointer, recordsAt start: Int, count: Int,
                                 in new: UnsafeRawBufferPointer, _ records: [Range<Int>], from: Int) -> Int? {
        let bytes = kept.count - start
        // An old segment starts where the previous kept one ended, or after the records of old
        // segments that changed (each at most a segment's worth): a bounded look ahead.
        for at in from..<min(from + 1024, records.count) where at + count <= records.count {
            let region = records[at].lowerBound..<records[at + count - 1].upperBound
            if region.count == bytes, memcmp(new.baseAddress! + region.lowerBound, kept.baseAddress! + start, bytes) == 0 {
                return at
            }
        }
        return nil
    }
}
