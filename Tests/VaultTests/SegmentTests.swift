import Foundation
import Testing
import KeyshelfCrypto
@testable import KeyshelfVault

/// Format v3's base segments (docs/vault-format.md, "Segments (v3)"): a
/// whole-file save lays the records out in segments of about 64 KiB and
/// keeps the ciphertext of every segment whose records did not change, so
/// that git stores only the segments a change touched.
@Suite struct SegmentTests {
    /// The segments of a v3 file: each secretstream's range and whether it is the manifest.
    static func segments(_ bytes: [UInt8]) -> [(range: Range<Int>, manifest: Bool)] {
        let end = VaultHeader.byteCount + bytes.withUnsafeBytes { Int($0.loadLittleEndian(UInt64.self, at: VaultHeader.payloadByteCountOffset)) }
        var out: [(Range<Int>, Bool)] = []
        var offset = VaultHeader.byteCount
        while offset < end {
            let raw = bytes.withUnsafeBytes { $0.loadLittleEndian(UInt32.self, at: offset) }
            let length = Int(raw & ~VaultFile.manifestFlag)
            out.append(((offset + 4)..<(offset + 4 + length), raw & VaultFile.manifestFlag != 0))
            offset += 4 + length
        }
        return out
    }

    static func base(_ bytes: [UInt8]) -> [[UInt8]] {
        let all = segments(bytes)
        return all.prefix { !$0.manifest }.map { Array(bytes[$0.range]) }
    }

    /// Items of about 200 encoded bytes each.
    static func items(_ range: Range<Int>) -> [Item] {
        range.map { n in
            var item = sampleItem(n)
            item.comment = String(repeating: "c", count: 120)
            return item
        }
    }

    @Test func aLargeStoreIsSealedInSegmentsOfAbout64KiB() throws {
        let vault = TemporaryVault()
        defer { vault.cleanUp() }
        let session = try vault.directory.create(password: testPassword, limits: .minimum)
        try session.modify { $0.shared = Self.items(0..<2000) }
        try session.modify { $0.shared.removeLast() }  // a whole-file save
        let bytes = try readBytes(vault.file(.shared))
        let base = Self.base(bytes)
        let total = base.reduce(0) { $0 + $1.count }
        #expect(base.count == (total + SegmentLayout.targetSegmentByteCount - 1) / SegmentLayout.targetSegmentByteCount,
                "\(base.map(\.count)) for \(total) bytes")
        #expect(base.dropLast().allSatisfy { $0.count <= SegmentLayout.targetSegmentByteCount + 24 + 17 * 2 })
        #expect(Self.segments(bytes).last?.manifest == true)
        #expect(try vault.directory.unlock(password: testPassword).contents().shared == Self.items(0..<1999))
    }

    @Test func aWholeFileSaveKeepsTheSegmentsItsChangeDidNotTouch() throws {
        let vault = TemporaryVault()
        defer { vault.cleanUp() }
        let session = try vault.directory.create(password: testPassword, limits: .minimum)
        try session.modify { $0.shared = Self.items(0..<2000) }
        try session.modify { $0.shared.removeLast() }
        let before = Self.base(try readBytes(vault.file(.shared)))
        // A removal in the middle: a whole-file save (no appendix can say it).
        try session.modify { $0.shared.remove(at: 1000) }
        let after = Self.base(try readBytes(vault.file(.shared)))
        let kept = before.filter { after.contains($0) }
        #expect(kept.count >= before.count - 2, "kept \(kept.count) of \(before.count)")
        #expect(kept.count < before.count, "the segment that held the record was sealed again")
        var expected = Self.items(0..<1999)
        expected.remove(at: 1000)
        #expect(try vault.directory.unlock(password: testPassword).contents().shared == expected)

        // Edits as appendices, then a compaction: only the edited segment is sealed again.
        for n in 0..<3 { try session.modify { $0.shared[10].label = "edit \(n)" } }
        try session.modify { $0.shared.removeLast() }
        let compacted = Self.base(try readBytes(vault.file(.shared)))
        #expect(compacted.filter { after.contains($0) }.count >= after.count - 2)
        expected[10].label = "edit 2"
        expected.removeLast()
        let reopened = try vault.directory.unlock(password: testPassword).contents().shared
        #expect(reopened.map(\.id) == expected.map(\.id))
        #expect(reopened[10].label == "edit 2")
    }

    /// Rewrites `vault`'s shared file with `transform` applied to its segment list
    /// (keeping the header's payload length right).
    static func tamper(_ vault: TemporaryVault, _ transform: ([[UInt8]]) -> [[UInt8]]) throws {
        let bytes = try readBytes(vault.file(.shared))
        let pieces = segments(bytes).map { Array(bytes[($0.range.lowerBound - 4)..<$0.range.upperBound]) }
        let payload = transform(pieces).flatMap { $0 }
        var header = Array(bytes[..<VaultHeader.byteCount])
        withUnsafeBytes(of: UInt64(payload.count).littleEndian) { header.replaceSubrange(120..<128, with: $0) }
        try writeBytes(withValidChecksum(header) + payload, to: vault.file(.shared))
    }

    @Test func swappedMissingOrForeignSegmentsAreDamage() throws {
        let vault = TemporaryVault()
        defer { vault.cleanUp() }
        let session = try vault.directory.create(password: testPassword, limits: .minimum)
        try session.modify { $0.shared = Self.items(0..<1000) }
        try session.modify { $0.shared.removeLast() }
        let original = try readBytes(vault.file(.shared))
        #expect(Self.base(original).count >= 3)
        func failure() -> String? { OpenFailureTests.failedOpen(vault).map { "\($0.code): \($0.reason)" } }

        try Self.tamper(vault) { var p = $0; p.swapAt(0, 1); return p }
        #expect(failure()?.contains("damaged: is damaged (segment 1 is not the one its segment list names") == true, "\(failure() ?? "opened")")
        try writeBytes(original, to: vault.file(.shared))
        try Self.tamper(vault) { var p = $0; p.remove(at: 1); return p }
        #expect(failure()?.contains("segment list does not match its segments") == true, "\(failure() ?? "opened")")
        try writeBytes(original, to: vault.file(.shared))
        try Self.tamper(vault) { var p = $0; p.removeLast(); return p }
        #expect(failure()?.contains("has no segment list") == true, "\(failure() ?? "opened")")

        // A segment of another version of the file, under the same key, in place of one of this version.
        try writeBytes(original, to: vault.file(.shared))
        let other = try vault.directory.unlock(password: testPassword)
        try other.modify { $0.shared[0].label = "changed"; $0.shared.removeLast() }
        let changedFirst = Self.segments(try readBytes(vault.file(.shared)))[0]
        let foreign = Array(try readBytes(vault.file(.shared))[(changedFirst.range.lowerBound - 4)..<changedFirst.range.upperBound])
        try writeBytes(original, to: vault.file(.shared))
        try Self.tamper(vault) { var p = $0; p[0] = foreign; return p }
        #expect(failure()?.contains("segment 1 is not the one its segment list names") == true, "\(failure() ?? "opened")")
        try writeBytes(original, to: vault.file(.shared))
        #expect(try vault.directory.unlock(password: testPassword).contents().shared == Self.items(0..<999))
    }
}
