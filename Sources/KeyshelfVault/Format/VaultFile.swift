import Foundation
import KeyshelfCrypto

/// Sealing and opening one vault file (header + secretstream payload).
/// Pure functions over bytes; the session does the I/O.
enum VaultFile {
    /// Argon2id over `password`; `limits` must already have passed `VaultHeader.checkCeilings`.
    /// - Throws: `.io` when Argon2id cannot run (usually memory).
    static func deriveKey(password: Secret, salt: [UInt8], limits: PasswordHashLimits, path: String) throws -> SecureBytes {
        do {
            return try PasswordHash.deriveKey(password: password, salt: salt, limits: limits)
        } catch {
            throw VaultError(.io, file: path, reason: "cannot run Argon2id with \(limits) (not enough memory?)")
        }
    }

    /// Unwraps the vault key with the password-derived key.
    /// - Throws: `.wrongPassword` when the key does not authenticate (the header
    ///   checksum already ruled out damage).
    static func unwrapKey(header: VaultHeader, passwordKey: SecureBytes, path: String) throws -> SecureBytes {
        do {
            return try AEAD.open(header.wrappedKey, key: passwordKey, nonce: header.nonce, associatedData: header.keyWrapAssociatedData())
        } catch {
            throw VaultError.wrongPassword(file: path)
        }
    }

    /// A header for `store` with a fresh nonce, wrapping `vaultKey` under `passwordKey`.
    /// - Parameter version: the format version; an existing payload's own
    ///   (it is part of the payload's associated data).
    static func makeHeader(
        version: UInt16 = VaultHeader.formatVersion, store: Store, limits: PasswordHashLimits, salt: [UInt8],
        vaultKey: SecureBytes, passwordKey: SecureBytes,
        chunkByteCount: UInt32 = VaultHeader.defaultChunkByteCount, payloadByteCount: UInt64 = 0
    ) throws -> VaultHeader {
        var header = VaultHeader(
            version: version, store: store, chunkByteCount: chunkByteCount, limits: limits, salt: salt,
            nonce: Random.bytes(AEAD.nonceByteCount),
            wrappedKey: [UInt8](repeating: 0, count: VaultHeader.vaultKeyByteCount + AEAD.tagByteCount),
            payloadByteCount: payloadByteCount)
        header.wrappedKey = try AEAD.seal(vaultKey, key: passwordKey, nonce: header.nonce, associatedData: header.keyWrapAssociatedData())
        return header
    }

    /// A file's authenticated, decoded contents.
    struct Opened {
        /// The items of the base segments, then those of each appendix (in v3
        /// folded by id: a record replaces the first with its id, in place).
        var items: [Item]
        /// The one encoding `items` were decoded from (passwords are slices of it).
        var plaintext: SecureBytes
        /// The list number of `items`' `recordOrigin`s (their positions in `plaintext`).
        var generation: UInt64
        /// The MAC every appendix authenticates: the last 16 bytes of the
        /// manifest (v3) or of the first segment (v2); empty for a v1 file.
        var payloadTag: [UInt8]
        /// Appendices in the payload.
        var appendixCount: Int
        /// Bytes of those appendices, length prefixes included.
        var appendixByteCount: Int
        /// Bytes follow the announced payload: an append that had not
        /// updated the header yet (unfinished, or under way in another process).
        var hasUnfinishedAppend: Bool
    }

    /// Bytes before each v2 segment's secretstream: its length, u32 little-endian.
    static let segmentPrefixByteCount = 4
    /// A secretstream chunk's MAC, its last bytes (crypto_secretstream_xchacha20poly1305: 16).
    static let payloadTagByteCount = 16

    /// The smallest secretstream, so the smallest segment after its length:
    /// a stream header and one empty FINAL chunk (41 bytes).
    static let smallestSegmentByteCount = SecretStream.sealedByteCount(plaintextByteCount: 0, chunkByteCount: 1)

    /// The largest appendix: one chunk of `chunkByteCount` plaintext bytes, prefix included.
    static func largestAppendixByteCount(chunkByteCount: Int) -> Int {
        segmentPrefixByteCount + SecretStream.sealedByteCount(plaintextByteCount: chunkByteCount, chunkByteCount: chunkByteCount)
    }

    /// The high bit of a v3 segment's length marks the manifest (docs/vault-format.md, "Segments (v3)").
    static let manifestFlag: UInt32 = 0x8000_0000

    /// A v3 base segment's associated data: header bytes 0..<15 and the role
    /// byte 1. Nothing about its place: a segment keeps its bytes when the
    /// segments around it change; the manifest fixes the order.
    static func baseSegmentAssociatedData(_ header: VaultHeader) -> [UInt8] {
        header.payloadAssociatedData() + [1]
    }

    /// The v3 manifest's associated data: header bytes 0..<15 and the role byte 2.
    static func manifestAssociatedData(_ header: VaultHeader) -> [UInt8] {
        header.payloadAssociatedData() + [2]
    }

    /// The segments of a payload: where each secretstream lies (after its
    /// length prefix) and, in v3, which one is the manifest.
    private struct Segments {
        var ranges: [Range<Int>] = []
        var manifest: Int?
    }

    /// Reads the segment lengths of a v2/v3 payload, checking each as it is
    /// found, so that a damaged payload (a run of zero bytes reads as empty
    /// segments) fails in bounded memory.
    private static func segments(_ file: [UInt8], end: Int, header: VaultHeader, path: String) throws -> Segments {
        var found = Segments()
        var offset = VaultHeader.byteCount
        repeat {
            guard end - offset >= segmentPrefixByteCount else { throw segmentsError(path) }
            var length = file.withUnsafeBytes { $0.loadLittleEndian(UInt32.self, at: offset) }
            if header.version >= 3, length & manifestFlag != 0 {
                guard found.manifest == nil, !found.ranges.isEmpty else {
                    throw VaultError(.damaged, file: path, reason: "is damaged (its payload's segment list is not where it belongs); \(VaultError.restoreAdvice)")
                }
                found.manifest = found.ranges.count
                length &= ~manifestFlag
            }
            offset += segmentPrefixByteCount
            guard Int(length) <= end - offset else { throw segmentsError(path) }
            guard Int(length) >= smallestSegmentByteCount else {
                throw VaultError(.damaged, file: path, reason: "is damaged (segment \(found.ranges.count + 1) of its payload is \(length) bytes, shorter than any encrypted segment); \(VaultError.restoreAdvice)")
            }
            let appendices = found.ranges.count - (header.version >= 3 ? (found.manifest ?? found.ranges.count) : 0)
            guard appendices <= VaultSession.maximumAppendixCount else {
                throw VaultError(.damaged, file: path, reason: "is damaged (its payload holds more than \(VaultSession.maximumAppendixCount) appendices, more than keyshelf writes); \(VaultError.restoreAdvice)")
            }
            found.ranges.append(offset..<(offset + Int(length)))
            offset += Int(length)
        } while offset < end
        if header.version >= 3, found.manifest == nil {
            throw VaultError(.damaged, file: path, reason: "is damaged (its payload has no segment list); \(VaultError.restoreAdvice)")
        }
        return found
    }

    /// The base segments of a v3 file (before its manifest), authenticated
    /// against the manifest and decrypted, for a save that keeps the
    /// unchanged ones (`SegmentLayout`); empty for v1 and v2 files.
    /// - Throws: the errors of `open`.
    static func baseSegments(_ file: [UInt8], header: VaultHeader, vaultKey: SecureBytes, path: String) throws -> [SegmentLayout.OldSegment] {
        guard header.version >= 3 else { return [] }
        let end = try payloadEnd(file, header: header, path: path)
        let found = try segments(file, end: end, header: header, path: path)
        let base = try openBase(file, found, header: header, vaultKey: vaultKey, path: path)
        return zip(found.ranges, base.lists).map { SegmentLayout.OldSegment(ciphertext: $0, records: $1) }
    }

    private static func payloadEnd(_ file: [UInt8], header: VaultHeader, path: String) throws -> Int {
        let end = VaultHeader.byteCount + Int(header.payloadByteCount)
        // The header was checked against the size on disk; fewer bytes were read when the file shrank meanwhile.
        guard end <= file.count else {
            throw VaultError(.truncated, file: path, reason: "is truncated (\(file.count) bytes read, its header announces \(end)); \(VaultError.restoreAdvice)")
        }
        return end
    }

    /// Opens the segments before the first appendix: v1's and v2's first
    /// segment; v3's base segments, each checked against its tag in the
    /// manifest. Returns their record lists and the tag appendices authenticate.
    private static func openBase(_ file: [UInt8], _ found: Segments, header: VaultHeader, vaultKey: SecureBytes, path: String) throws -> (lists: [SecureBytes], tag: [UInt8]) {
        func damaged(_ what: String) -> VaultError {
            VaultError(.damaged, file: path, reason: "is damaged (\(what)); \(VaultError.restoreAdvice)")
        }
        func open(_ range: Range<Int>, _ associatedData: [UInt8]) throws -> SecureBytes {
            do {
                return try openSegment(file, range, header: header, vaultKey: vaultKey, associatedData: associatedData)
            } catch CryptoError.truncatedStream {
                throw VaultError(.truncated, file: path, reason: "is truncated (its encrypted payload lacks its final chunk); \(VaultError.restoreAdvice)")
            } catch {
                throw damaged("its encrypted payload does not authenticate")
            }
        }
        func tag(_ range: Range<Int>) -> [UInt8] {
            // Taken once the segment opened (or its length checked), so it is longer than a MAC.
            Array(file[(range.upperBound - payloadTagByteCount)..<range.upperBound])
        }
        guard let manifestIndex = found.manifest else {
            let first = try open(found.ranges[0], header.payloadAssociatedData())
            return ([first], header.version == 1 ? [] : tag(found.ranges[0]))
        }
        let manifestRange = found.ranges[manifestIndex]
        let manifest = try open(manifestRange, manifestAssociatedData(header))
        let tags = manifest.withUnsafeBytes { buffer -> [[UInt8]]? in
            guard buffer.count == SegmentLayout.manifestByteCount(manifestIndex),
                  Int(buffer.loadLittleEndian(UInt32.self, at: 0)) == manifestIndex else { return nil }
            return (0..<manifestIndex).map { Array(buffer[(4 + $0 * payloadTagByteCount)..<(4 + ($0 + 1) * payloadTagByteCount)]) }
        }
        guard let tags else { throw damaged("its segment list does not match its segments") }
        var lists: [SecureBytes] = []
        for (index, range) in found.ranges[..<manifestIndex].enumerated() {
            // Opened first, so that a segment cut short is reported as truncated.
            lists.append(try open(range, baseSegmentAssociatedData(header)))
            guard tag(range) == tags[index] else { throw damaged("segment \(index + 1) is not the one its segment list names") }
        }
        return (lists, tag(manifestRange))
    }

    /// Authenticates the whole payload (v1: one secretstream; v2: its
    /// segments, which must fill it exactly; v3: its base segments, its
    /// manifest and its appendices), then decodes it. Nothing is returned
    /// unless every chunk verifies and each segment ends FINAL.
    /// - Throws: `.damaged`, `.truncated`.
    static func open(_ file: [UInt8], header: VaultHeader, vaultKey: SecureBytes, path: String) throws -> Opened {
        let end = try payloadEnd(file, header: header, path: path)
        let found = header.version == 1 ? Segments(ranges: [VaultHeader.byteCount..<end]) : try segments(file, end: end, header: header, path: path)
        var (lists, payloadTag) = try openBase(file, found, header: header, vaultKey: vaultKey, path: path)
        let appendices = found.ranges[(found.manifest.map { $0 + 1 } ?? 1)...]
        let baseListCount = lists.count
        for (index, segment) in appendices.enumerated() {
            let associatedData = appendixAssociatedData(header: header, payloadTag: payloadTag, index: index)
            do {
                lists.append(try openSegment(file, segment, header: header, vaultKey: vaultKey, associatedData: associatedData))
            } catch {
                throw VaultError(.damaged, file: path, reason: "is damaged (appendix \(index + 1) does not authenticate); \(VaultError.restoreAdvice)")
            }
        }
        do {
            let folds = header.version >= 3 && !appendices.isEmpty
            let baseItemCount = folds ? try lists[..<baseListCount].reduce(0) { $0 + (try RecordCodec.itemCount($1)) } : 0
            var plaintext = lists.count == 1 ? lists[0] : try RecordCodec.join(&lists)
            lists = []
            let generation = RecordOrigin.nextGeneration()
            var items = try RecordCodec.decode(plaintext, generation: generation)
            if folds, var folded = folded(items, firstSegmentCount: baseItemCount) {
                // Re-encoded, so that the session's plaintext is the encoding of its items (what a save compares with).
                plaintext = RecordCodec.encode(&folded, generation: generation)
                items = folded
            }
            return Opened(items: items, plaintext: plaintext, generation: generation, payloadTag: payloadTag,
                          appendixCount: appendices.count,
                          appendixByteCount: appendices.reduce(0) { $0 + segmentPrefixByteCount + $1.count },
                          hasUnfinishedAppend: file.count > end)
        } catch let error as RecordCodec.DecodeError {
            throw VaultError(.damaged, file: path, reason: "is damaged (\(error.reason)); \(VaultError.restoreAdvice)")
        }
    }

    /// v3's rule for appendices (docs/vault-format.md, "Appendices"): an
    /// appendix record whose id came earlier replaces the first record with
    /// that id in its place; the others are added at the end. Base records
    /// never replace one another (two with one id both stay, whether or not
    /// an appendix follows). `items` are the base segments'
    /// `firstSegmentCount` items followed by the appendices'.
    /// - Returns: the folded items, or nil when no record replaced another.
    static func folded(_ items: [Item], firstSegmentCount: Int) -> [Item]? {
        let base = min(firstSegmentCount, items.count)
        let appended = Set(items[base...].lazy.map(\.id))
        var position: [UUID: Int] = [:]
        var out: [Item] = []
        out.reserveCapacity(items.count)
        var replaced = false
        for (index, item) in items.enumerated() {
            if appended.contains(item.id) {
                if let earlier = position[item.id] {
                    if index >= base {
                        out[earlier] = item
                        replaced = true
                        continue
                    }
                } else {
                    position[item.id] = out.count
                }
            }
            out.append(item)
        }
        return replaced ? out : nil
    }

    private static func openSegment(_ file: [UInt8], _ range: Range<Int>, header: VaultHeader, vaultKey: SecureBytes, associatedData: [UInt8]) throws -> SecureBytes {
        try file.withUnsafeBytes {
            try SecretStream.open(UnsafeRawBufferPointer(rebasing: $0[range]), key: vaultKey,
                                  chunkByteCount: Int(header.chunkByteCount), associatedData: associatedData)
        }
    }

    private static func segmentsError(_ path: String) -> VaultError {
        VaultError(.damaged, file: path, reason: "is damaged (its payload's segment lengths do not add up to its announced length); \(VaultError.restoreAdvice)")
    }

    /// One appendix holding `records` (a payload of its own: `varint(count)
    /// record*`): its u32 length, then a secretstream with a fresh header,
    /// chunked as the payload (docs/vault-format.md, "Appendices").
    /// - Parameter index: 0 for the first appendix after the payload.
    static func sealAppendix(_ records: SecureBytes, header: VaultHeader, vaultKey: SecureBytes, payloadTag: [UInt8], index: Int) throws -> [UInt8] {
        let sealed = try SecretStream.seal(records, key: vaultKey, chunkByteCount: Int(header.chunkByteCount),
                                           associatedData: appendixAssociatedData(header: header, payloadTag: payloadTag, index: index))
        var out = [UInt8]()
        out.reserveCapacity(segmentPrefixByteCount + sealed.count)
        out.appendLittleEndian(UInt32(sealed.count))
        out += sealed
        return out
    }

    /// An appendix's associated data: header bytes 0..<15 (as the payload's),
    /// `payloadTag`, the manifest's (v3) or first segment's (v2) MAC (binds
    /// it to that payload: an appendix from an earlier version of the file
    /// does not open), and its index, u32
    /// little-endian (appendices cannot be reordered or moved).
    private static func appendixAssociatedData(header: VaultHeader, payloadTag: [UInt8], index: Int) -> [UInt8] {
        var out = header.payloadAssociatedData() + payloadTag
        out.appendLittleEndian(UInt32(index))
        return out
    }

    /// `header` in the current format version with its payload length set
    /// for `layout`. A header of an older version gets its vault key
    /// wrapped again (a fresh nonce), because the version is part of the
    /// key wrap's associated data: a v1 or v2 file is rewritten as v3.
    /// - Throws: `CryptoError` from the key wrap.
    static func sealedHeader(for layout: SegmentLayout, header: VaultHeader, vaultKey: SecureBytes, passwordKey: SecureBytes) throws -> VaultHeader {
        var out = header
        if out.version != VaultHeader.formatVersion {
            out = try makeHeader(store: header.store, limits: header.limits, salt: header.salt, vaultKey: vaultKey,
                                 passwordKey: passwordKey, chunkByteCount: header.chunkByteCount)
        }
        out.payloadByteCount = UInt64(layout.payloadByteCount)
        return out
    }
}
