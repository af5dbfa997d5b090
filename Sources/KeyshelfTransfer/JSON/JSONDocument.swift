import KeyshelfCrypto

/// A JSON text (RFC 8259) parsed from sodium memory. String values are
/// unescaped into one `SecureBytes` arena and kept as byte ranges, so a
/// password read from a Bitwarden export can be handed out as a `Secret`
/// without ever becoming a Swift `String`; object keys are plain strings.
///
/// Nesting deeper than `maxDepth` is refused, so a hostile file cannot
/// exhaust the stack.
struct JSONDocument {
    /// A parsed value; `offset` is the byte where an object starts, for line numbers.
    indirect enum Value {
        case object([(key: String, value: Value)], offset: Int)
        case array([Value])
        case string(Range<Int>)
        case number(Double)
        case bool(Bool)
        case null

        /// The member `key` of an object (the first of duplicates); nil otherwise.
        subscript(key: String) -> Value? {
            guard case .object(let members, _) = self else { return nil }
            return members.first { $0.key == key }?.value
        }

        /// The elements of an array; [] for anything else.
        var elements: [Value] {
            if case .array(let values) = self { return values }
            return []
        }
    }

    /// Why a text is not JSON, and the 1-based line where that was found.
    struct SyntaxError: Error {
        let line: Int
        let reason: String
    }

    /// The most nested arrays and objects accepted.
    static let maxDepth = 64

    let arena: SecureBytes
    let root: Value
    private let lineStarts: [Int]

    /// Parses `bytes` (UTF-8, a leading byte-order mark already removed).
    /// - Throws: `SyntaxError` for anything that is not one JSON value.
    init(parsing bytes: UnsafeRawBufferPointer) throws {
        var parser = Parser(bytes: bytes, arena: SecureBytes(byteCount: max(bytes.count, 1)))
        let value = try parser.document()
        arena = parser.arena
        root = value
        lineStarts = [0] + bytes.indices.filter { bytes[$0] == 0x0A }.map { $0 + 1 }
    }

    /// The text of a string value; nil for any other value.
    func string(_ value: Value?) -> String? {
        guard case .string(let range)? = value else { return nil }
        return arena.withUnsafeBytes { String(decoding: UnsafeRawBufferPointer(rebasing: $0[range]), as: UTF8.self) }
    }

    /// A string value as a `Secret` sharing the arena; nil for any other value.
    func secret(_ value: Value?) -> Secret? {
        guard case .string(let range)? = value else { return nil }
        return Secret(storage: arena, range: range)
    }

    /// The 1-based line holding byte `offset`.
    func line(at offset: Int) -> Int {
        var low = 0, high = lineStarts.count - 1
        while low < high {
            let mid = (low + high + 1) / 2
            if lineStarts[mid] <= offset { low = mid } else { high = mid - 1 }
        }
        return low + 1
    }

    private struct Parser {
        let bytes: UnsafeRawBufferPointer
        let arena: SecureBytes
        var at = 0
        var used = 0
        var depth = 0

        mutating func document() throws -> Value {
            let value = try parseValue()
            skipSpace()
            guard at == bytes.count else { throw fail("text after the JSON value") }
            return value
        }

        func fail(_ reason: String) -> SyntaxError {
            SyntaxError(line: bytes[..<min(at, bytes.count)].filter { $0 == 0x0A }.count + 1, reason: reason)
        }

        mutating func skipSpace() {
            while at < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[at]) { at += 1 }
        }

        mutating func parseValue() throws -> Value {
            skipSpace()
            guard at < bytes.count else { throw fail("unexpected end of the text") }
            switch bytes[at] {
            case UInt8(ascii: "{"): return try parseObject()
            case UInt8(ascii: "["): return try parseArray()
            case UInt8(ascii: "\""): return .string(try parseString())
            case UInt8(ascii: "t"): try literal("true"); return .bool(true)
            case UInt8(ascii: "f"): try literal("false"); return .bool(false)
            case UInt8(ascii: "n"): try literal("null"); return .null
            default: return .number(try parseNumber())
            }
        }

        mutating func literal(_ word: String) throws {
            let expected = Array(word.utf8)
            guard at + expected.count <= bytes.count, Array(bytes[at..<at + expected.count]) == expected else {
                throw fail("unexpected character")
            }
            at += expected.count
        }

        mutating func nest() throws {
            depth += 1
            guard depth <= JSONDocument.maxDepth else { throw fail("nested more than \(JSONDocument.maxDepth) levels deep") }
        }

        mutating func parseObject() throws -> Value {
            let start = at
            try nest()
            at += 1
            var members: [(key: String, value: Value)] = []
            skipSpace()
            if at < bytes.count, bytes[at] == UInt8(ascii: "}") {
                at += 1
                depth -= 1
                return .object(members, offset: start)
            }
            while true {
                skipSpace()
                guard at < bytes.count, bytes[at] == UInt8(ascii: "\"") else { throw fail("expected a member name in quotes") }
                let keyRange = try parseString()
                let key = arena.withUnsafeBytes { String(decoding: UnsafeRawBufferPointer(rebasing: $0[keyRange]), as: UTF8.self) }
                skipSpace()
                guard at < bytes.count, bytes[at] == UInt8(ascii: ":") else { throw fail("expected ':' after a member name") }
                at += 1
                members.append((key, try parseValue()))
                skipSpace()
                guard at < bytes.count else { throw fail("unexpected end of the text inside an object") }
                if bytes[at] == UInt8(ascii: ",") { at += 1; continue }
                guard bytes[at] == UInt8(ascii: "}") else { throw fail("expected ',' or '}' in an object") }
                at += 1
                depth -= 1
                return .object(members, offset: start)
            }
        }

        mutating func parseArray() throws -> Value {
            try nest()
            at += 1
            var values: [Value] = []
            skipSpace()
            if at < bytes.count, bytes[at] == UInt8(ascii: "]") {
                at += 1
                depth -= 1
                return .array(values)
            }
            while true {
                values.append(try parseValue())
                skipSpace()
                guard at < bytes.count else { throw fail("unexpected end of the text inside an array") }
                if bytes[at] == UInt8(ascii: ",") { at += 1; continue }
                guard bytes[at] == UInt8(ascii: "]") else { throw fail("expected ',' or ']' in an array") }
                at += 1
                depth -= 1
                return .array(values)
            }
        }

        mutating func parseNumber() throws -> Double {
            let start = at
            while at < bytes.count, "+-0123456789.eE".utf8.contains(bytes[at]) { at += 1 }
            guard at > start, let number = Double(String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<at]), as: UTF8.self))
            else { throw fail("unexpected character") }
            return number
        }

        /// Unescapes the string at `at` (its opening quote) into the arena.
        mutating func parseString() throws -> Range<Int> {
            at += 1
            let start = used
            while true {
                guard at < bytes.count else { throw fail("a string is never closed") }
                let byte = bytes[at]
                at += 1
                switch byte {
                case UInt8(ascii: "\""):
                    return start..<used
                case UInt8(ascii: "\\"):
                    guard at < bytes.count else { throw fail("a string is never closed") }
                    let escape = bytes[at]
                    at += 1
                    switch escape {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): put(escape)
                    case UInt8(ascii: "b"): put(0x08)
                    case UInt8(ascii: "f"): put(0x0C)
                    case UInt8(ascii: "n"): put(0x0A)
                    case UInt8(ascii: "r"): put(0x0D)
                    case UInt8(ascii: "t"): put(0x09)
                    case UInt8(ascii: "u"): try putUnicodeEscape()
                    default: throw fail("unknown escape in a string")
                    }
                case 0..<0x20:
                    at -= 1
                    throw fail("a control character inside a string")
                default:
                    put(byte)
                }
            }
        }

        mutating func hex4() throws -> UInt32 {
            guard at + 4 <= bytes.count,
                  let value = UInt32(String(decoding: UnsafeRawBufferPointer(rebasing: bytes[at..<at + 4]), as: UTF8.self), radix: 16)
            else { throw fail("a \\u escape without four hex digits") }
            at += 4
            return value
        }

        mutating func putUnicodeEscape() throws {
            var code = try hex4()
            if (0xD800..<0xDC00).contains(code) {
                guard at + 2 <= bytes.count, bytes[at] == UInt8(ascii: "\\"), bytes[at + 1] == UInt8(ascii: "u") else {
                    throw fail("a lone UTF-16 surrogate in a \\u escape")
                }
                at += 2
                let low = try hex4()
                guard (0xDC00..<0xE000).contains(low) else { throw fail("a lone UTF-16 surrogate in a \\u escape") }
                code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
            } else if (0xDC00..<0xE000).contains(code) {
                throw fail("a lone UTF-16 surrogate in a \\u escape")
            }
            for unit in UTF8.encode(Unicode.Scalar(code)!)! { put(unit) }
        }

        /// Unescaped text is never longer than its escaped form, so the arena (the file's size) always has room.
        mutating func put(_ byte: UInt8) {
            arena.withUnsafeMutableBytes { $0[used] = byte }
            used += 1
        }
    }
}
