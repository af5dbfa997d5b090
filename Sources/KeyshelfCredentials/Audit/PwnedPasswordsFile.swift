import Foundation

/// An offline Have I Been Pwned SHA-1 list (`HASH:COUNT` lines sorted by hash,
/// as the official downloader writes them; tens of GB), binary-searched by
/// byte offset: each probe seeks, skips to the next line start and reads one
/// line, so a lookup costs O(log n) reads and the file is never scanned
/// (docs/audit.md).
///
/// Refused: a compressed file (gzip, 7z, zip, bzip2, xz, zstd magic: it cannot
/// be searched), a file whose first lines are not `HASH:COUNT` with 40 hex
/// digits, and a file found unsorted — in a sample at the start or in any
/// line a search visits.
public final class PwnedPasswordsFile: PwnedPasswordsSource {
    /// Hex digits of a SHA-1 hash.
    static let hashLength = 40
    /// Bytes read per probe: longer than any `HASH:COUNT\r\n` line, plus the byte before.
    static let probeByteCount = 128
    /// Below this many bytes a search reads the rest of its range in one go.
    static let scanWindowByteCount = 4096
    /// Bytes checked for sortedness when the file is opened.
    static let sampleByteCount = 65536

    private let handle: FileHandle
    private let descriptor: Int32
    private let path: String
    /// File size in bytes.
    public let byteCount: Int
    /// `pread` calls made so far (for tests: a lookup makes O(log n)).
    public private(set) var readCount = 0
    /// Bytes read so far (for tests: a lookup reads O(log n) probes of `probeByteCount` and one window).
    public private(set) var bytesRead = 0
    /// Probe results by offset: the top levels of every search are the same, so they are read once.
    private var probes: [Int: Probe] = [:]

    private struct Probe {
        /// Offset of the first line that starts at or after the probed offset (`byteCount` when none).
        var lineStart: Int
        /// That line's upper-case hash and count; nil at the end of the file.
        var line: (hash: [UInt8], count: Int)?
    }

    /// Opens the list at `path` and checks its start.
    /// - Throws: `AuditError` `.unreadableList` (missing, unreadable, not a SHA-1
    ///   `HASH:COUNT` list), `.compressedList`, `.unsortedList`.
    public init(path: String) throws {
        self.path = path
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw AuditError(.unreadableList, "cannot read the Have I Been Pwned list \(path)")
        }
        self.handle = handle
        descriptor = handle.fileDescriptor
        var info = stat()
        guard fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            throw AuditError(.unreadableList, "\(path) is not a regular file")
        }
        byteCount = Int(info.st_size)
        try checkStart()
    }

    deinit { try? handle.close() }

    public func breachCounts(of digests: [[UInt8]]) throws -> [Int] {
        try digests.map { try breachCount(ofHex: PwnedHex.upperHex($0)) }
    }

    /// The count of the line whose hash is `target` (40 upper-case hex ASCII bytes); 0 when none.
    /// - Throws: `AuditError.unsortedList` when the lines it visits are out of order;
    ///   `.unreadableList` when one is not a `HASH:COUNT` line or cannot be read.
    func breachCount(ofHex target: [UInt8]) throws -> Int {
        // The line with `target`, if any, starts in lo..<hi.
        var lo = 0, hi = byteCount
        // The nearest lines visited on either side, for the sortedness check.
        var below: (offset: Int, hash: [UInt8])?
        var above: (offset: Int, hash: [UInt8])?
        while hi - lo > Self.scanWindowByteCount {
            let mid = lo + (hi - lo) / 2
            let probe = try self.probe(mid)
            guard let line = probe.line, probe.lineStart < hi else {
                hi = mid
                continue
            }
            if let below, probe.lineStart > below.offset, !below.hash.lexicographicallyPrecedes(line.hash) {
                throw unsorted(at: probe.lineStart)
            }
            if let above, probe.lineStart < above.offset, !line.hash.lexicographicallyPrecedes(above.hash) {
                throw unsorted(at: probe.lineStart)
            }
            if line.hash == target { return line.count }
            if line.hash.lexicographicallyPrecedes(target) {
                below = (probe.lineStart, line.hash)
                lo = probe.lineStart + 1
            } else {
                above = (probe.lineStart, line.hash)
                hi = mid
            }
        }
        return try scan(lo..<hi, for: target, below: below?.hash, above: above?.hash)
    }

    /// Reads the lines starting in `range` (and the one they run into) and looks for `target` among them.
    private func scan(_ range: Range<Int>, for target: [UInt8], below: [UInt8]?, above: [UInt8]?) throws -> Int {
        guard !range.isEmpty else { return 0 }
        let start = max(range.lowerBound - 1, 0)
        let bytes = try read(at: start, byteCount: range.upperBound - start + Self.probeByteCount)
        var index = range.lowerBound == 0 ? 0 : (bytes.firstIndex(of: 0x0A).map { $0 + 1 } ?? bytes.count)
        var previous = below
        while index < bytes.count, start + index < range.upperBound {
            guard let end = bytes[index...].firstIndex(of: 0x0A) ?? (start + bytes.count == byteCount ? bytes.count : nil) else { break }
            guard let line = PwnedHex.parse(Self.trimmed(bytes[index..<end]), hashLength: Self.hashLength) else {
                throw notAList(at: start + index)
            }
            if let previous, !previous.lexicographicallyPrecedes(line.hash) { throw unsorted(at: start + index) }
            if let above, !line.hash.lexicographicallyPrecedes(above) { throw unsorted(at: start + index) }
            if line.hash == target { return line.count }
            if target.lexicographicallyPrecedes(line.hash) { return 0 }
            previous = line.hash
            index = end + 1
        }
        return 0
    }

    /// The first line starting at or after `offset`, read once and remembered.
    private func probe(_ offset: Int) throws -> Probe {
        if let known = probes[offset] { return known }
        let start = max(offset - 1, 0)
        let bytes = try read(at: start, byteCount: Self.probeByteCount)
        // A line starts at `offset` when it is 0 or the byte before it is a newline.
        guard let lineIndex = offset == 0 ? 0 : bytes.firstIndex(of: 0x0A).map({ $0 + 1 }) else {
            throw notAList(at: offset)
        }
        var probe = Probe(lineStart: start + lineIndex, line: nil)
        if probe.lineStart < byteCount {
            let end = bytes[lineIndex...].firstIndex(of: 0x0A) ?? bytes.count
            guard end < bytes.count || start + end == byteCount,
                  let line = PwnedHex.parse(Self.trimmed(bytes[lineIndex..<end]), hashLength: Self.hashLength) else {
                throw notAList(at: probe.lineStart)
            }
            probe.line = line
        }
        if probes.count < 1 << 16 { probes[offset] = probe }
        return probe
    }

    /// Rejects compressed files and checks that the first lines are sorted `HASH:COUNT` lines.
    private func checkStart() throws {
        let head = try read(at: 0, byteCount: Self.sampleByteCount)
        let magics: [(bytes: [UInt8], name: String)] = [
            ([0x1F, 0x8B], "gzip"), ([0x37, 0x7A, 0xBC, 0xAF, 0x27, 0x1C], "7z"), ([0x50, 0x4B, 0x03, 0x04], "zip"),
            ([0x42, 0x5A, 0x68], "bzip2"), ([0xFD, 0x37, 0x7A, 0x58, 0x5A, 0x00], "xz"), ([0x28, 0xB5, 0x2F, 0xFD], "zstd"),
        ]
        if let magic = magics.first(where: { head.starts(with: $0.bytes) }) {
            throw AuditError(.compressedList, "\(path) is \(magic.name)-compressed, and a compressed list cannot be searched; unpack it first (for example with `7z x` or `gunzip`) and pass the plain-text file")
        }
        guard !head.isEmpty else { throw AuditError(.unreadableList, "\(path) is empty; pass a Have I Been Pwned SHA-1 list (HASH:COUNT lines)") }
        var previous: [UInt8]?
        var index = 0
        while let end = head[index...].firstIndex(of: 0x0A) ?? (head.count == byteCount && index < head.count ? head.count : nil) {
            guard let line = PwnedHex.parse(Self.trimmed(head[index..<end]), hashLength: Self.hashLength) else { throw notAList(at: index) }
            if let previous, !previous.lexicographicallyPrecedes(line.hash) { throw unsorted(at: index) }
            previous = line.hash
            index = end + 1
            if index >= head.count { break }
        }
        guard previous != nil else { throw notAList(at: 0) }
    }

    /// Up to `byteCount` bytes at `offset` (fewer at the end of the file). The corresponding C function is `pread`.
    private func read(at offset: Int, byteCount: Int) throws -> [UInt8] {
        let wanted = max(0, min(byteCount, self.byteCount - offset))
        var out = [UInt8](repeating: 0, count: wanted)
        var done = 0
        while done < wanted {
            readCount += 1
            let n = out.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress! + done, wanted - done, off_t(offset + done)) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw AuditError(.unreadableList, "cannot read \(path) at byte \(offset + done)") }
            done += n
            bytesRead += n
        }
        return out
    }

    private static func trimmed(_ line: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        line.last == 0x0D ? line.dropLast() : line
    }

    private func unsorted(at offset: Int) -> AuditError {
        AuditError(.unsortedList, "\(path) is not sorted by hash (out of order at byte \(offset)), so it cannot be binary-searched; download the list sorted by hash (the official downloader's default) or sort it with `LC_ALL=C sort`")
    }

    private func notAList(at offset: Int) -> AuditError {
        AuditError(.unreadableList, "\(path) is not a Have I Been Pwned SHA-1 list: the line at byte \(offset) is not HASH:COUNT with 40 hex digits")
    }
}
