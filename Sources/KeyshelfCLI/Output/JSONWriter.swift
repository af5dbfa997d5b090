import KeyshelfCrypto

/// Builds JSON text byte by byte, so a password goes from its `Secret`
/// straight into the output buffer without becoming a `String`.
/// Field order is kept as written (server, account, password, port, store).
///
/// The output is always valid JSON: `String` values are UTF-8 by
/// construction, control characters are escaped, and a password that is not
/// UTF-8 is refused (`NotUTF8`) rather than written as raw bytes or changed
/// (docs/cli.md, "Output").
struct JSONWriter {
    /// A password that is not valid UTF-8, which a JSON string cannot carry
    /// unchanged. Only items saved before add refused such passwords hold one.
    struct NotUTF8: Error {}

    private(set) var bytes: [UInt8] = []
    private var needsComma: [Bool] = [false]

    mutating func beginObject() { element(); bytes.append(UInt8(ascii: "{")); needsComma.append(false) }
    mutating func endObject() { needsComma.removeLast(); bytes.append(UInt8(ascii: "}")) }
    mutating func beginArray() { element(); bytes.append(UInt8(ascii: "[")); needsComma.append(false) }
    mutating func endArray() { needsComma.removeLast(); bytes.append(UInt8(ascii: "]")) }

    mutating func field(_ key: String, _ value: String) {
        writeKey(key)
        appendString(Array(value.utf8))
    }

    mutating func field(_ key: String, _ value: Int) {
        writeKey(key)
        bytes.append(contentsOf: Array(String(value).utf8))
    }

    mutating func field(_ key: String, _ value: [String]) {
        writeKey(key)
        bytes.append(UInt8(ascii: "["))
        for (i, item) in value.enumerated() {
            if i > 0 { bytes.append(UInt8(ascii: ",")) }
            appendString(Array(item.utf8))
        }
        bytes.append(UInt8(ascii: "]"))
    }

    mutating func field(_ key: String, _ value: Bool) {
        writeKey(key)
        bytes.append(contentsOf: Array((value ? "true" : "false").utf8))
    }

    /// Writes `secret` as a JSON string; nothing is written when it throws.
    /// - Throws: `NotUTF8` when the bytes are not valid UTF-8.
    mutating func field(_ key: String, secret: Secret) throws(NotUTF8) {
        guard secret.withUnsafeBytes(Self.isUTF8) else { throw NotUTF8() }
        writeKey(key)
        secret.withUnsafeBytes { appendString($0.bindMemory(to: UInt8.self)) }
    }

    private static func isUTF8(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var iterator = bytes.makeIterator()
        var decoder = UTF8()
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue: continue
            case .emptyInput: return true
            case .error: return false
            }
        }
    }

    private mutating func writeKey(_ key: String) {
        element()
        appendString(Array(key.utf8))
        bytes.append(UInt8(ascii: ":"))
    }

    private mutating func element() {
        if needsComma[needsComma.count - 1] { bytes.append(UInt8(ascii: ",")) }
        needsComma[needsComma.count - 1] = true
    }

    private mutating func appendString<C: Collection>(_ utf8: C) where C.Element == UInt8 {
        bytes.append(UInt8(ascii: "\""))
        let hex = Array("0123456789abcdef".utf8)
        for byte in utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes.append(contentsOf: [92, 34])
            case UInt8(ascii: "\\"): bytes.append(contentsOf: [92, 92])
            case 0x0A: bytes.append(contentsOf: [92, UInt8(ascii: "n")])
            case 0x0D: bytes.append(contentsOf: [92, UInt8(ascii: "r")])
            case 0x09: bytes.append(contentsOf: [92, UInt8(ascii: "t")])
            case 0..<0x20, 0x7F:
                bytes.append(contentsOf: Array("\\u00".utf8))
                bytes.append(hex[Int(byte >> 4)])
                bytes.append(hex[Int(byte & 0xF)])
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }
}
