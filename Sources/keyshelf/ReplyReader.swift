/// Reads a reply body: little-endian integers, `str` = `u32` byte count then
/// UTF-8 (checked), every read bounds-checked. A short or malformed reply
/// throws `HandBack.notPlainSuccess`.
struct ReplyReader {
    private let buffer: UnsafeRawBufferPointer
    private var offset = 0
    /// The password of the last `readPassword(keep: true)`, inside the reply buffer.
    private(set) var password: UnsafeRawBufferPointer?

    init(_ buffer: UnsafeRawBufferPointer) {
        self.buffer = buffer
    }

    var isAtEnd: Bool { offset == buffer.count }

    private mutating func take(_ count: Int) throws(HandBack) -> UnsafeRawBufferPointer {
        guard count >= 0, count <= buffer.count - offset else { throw .notPlainSuccess }
        defer { offset += count }
        return UnsafeRawBufferPointer(rebasing: buffer[offset..<(offset + count)])
    }

    private mutating func integer<T: FixedWidthInteger>(_ type: T.Type) throws(HandBack) -> T {
        T(littleEndian: try take(MemoryLayout<T>.size).loadUnaligned(as: T.self))
    }

    mutating func byte() throws(HandBack) -> UInt8 { try integer(UInt8.self) }
    mutating func u16() throws(HandBack) -> UInt16 { try integer(UInt16.self) }
    mutating func u64() throws(HandBack) -> UInt64 { try integer(UInt64.self) }

    /// A `u32` item count, no larger than the bytes left (each item takes at least one).
    mutating func count() throws(HandBack) -> Int {
        let count = Int(try integer(UInt32.self))
        guard count <= buffer.count - offset else { throw .notPlainSuccess }
        return count
    }

    mutating func string() throws(HandBack) -> String {
        let bytes = try take(Int(try integer(UInt32.self)))
        guard let text = String(validating: bytes.assumingMemoryBound(to: UInt8.self), as: UTF8.self) else { throw .notPlainSuccess }
        return text
    }

    /// A `str` checked as `string()` checks it, left in the reply buffer
    /// (no `String` per field: a listing of 100k records reads 300k of them).
    mutating func utf8() throws(HandBack) -> UnsafeRawBufferPointer {
        let bytes = try take(Int(try integer(UInt32.self)))
        // ASCII, the common case, is UTF-8; anything else is checked as `string()` does.
        guard !bytes.contains(where: { $0 >= 0x80 })
              || String(validating: bytes.assumingMemoryBound(to: UInt8.self), as: UTF8.self) != nil else { throw .notPlainSuccess }
        return bytes
    }

    /// `store`: "local" (0) or "shared" (1), as `Store.rawValue` prints it.
    mutating func store() throws(HandBack) -> String {
        switch try byte() {
        case 0: return "local"
        case 1: return "shared"
        default: throw .notPlainSuccess
        }
    }

    /// A `secret`, skipped, or kept in `password` (not copied) when `keep`.
    mutating func readPassword(keep: Bool) throws(HandBack) {
        let bytes = try take(Int(try integer(UInt32.self)))
        if keep { password = bytes }
    }

    /// Whether `text` is a UUID as Foundation's `UUID(uuidString:)` reads it:
    /// 8-4-4-4-12 hexadecimal digits (either case) and dashes.
    static func isUUID(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.count == 36 else { return false }
        return bytes.indices.allSatisfy { i in
            [8, 13, 18, 23].contains(i) ? bytes[i] == 0x2D
                : (0x30...0x39).contains(bytes[i]) || (0x41...0x46).contains(bytes[i]) || (0x61...0x66).contains(bytes[i])
        }
    }
}
