import Glibc
import KeyshelfCrypto

/// Reads an import source (a file, standard output's counterpart `-`) and
/// recognises what it holds by its content (issue 17 item 4, `--format auto`).
enum SourceReader {
    /// What the first bytes of a file say it is.
    enum Kind: Equatable {
        /// A KeePass 2 database (KDBX signature `03 D9 A2 9A 67 FB 4B B5`).
        case kdbx
        /// A KeePass 1 database (signature `03 D9 A2 9A 65 FB 4B B5`).
        case kdb
        /// A JSON object (first non-space character `{`): Bitwarden's JSON export.
        case json
        /// Anything else is read as CSV.
        case csv
    }

    static let kdbxSignature: [UInt8] = [0x03, 0xD9, 0xA2, 0x9A, 0x67, 0xFB, 0x4B, 0xB5]
    static let kdbSignature: [UInt8] = [0x03, 0xD9, 0xA2, 0x9A, 0x65, 0xFB, 0x4B, 0xB5]

    /// The kind of `bytes` (a whole file).
    static func kind(of bytes: UnsafeRawBufferPointer) -> Kind {
        if bytes.starts(with: kdbxSignature) { return .kdbx }
        if bytes.starts(with: kdbSignature) { return .kdb }
        var body = bytes[...]
        if body.starts(with: [0xEF, 0xBB, 0xBF]) { body = body.dropFirst(3) }
        let first = body.first { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }
        return first == UInt8(ascii: "{") ? .json : .csv
    }

    /// The bytes of `path`, or of standard input for `-`, in sodium memory.
    /// - Throws: `TransferError.unreadable`, `.tooLarge` (over `CSVReader.maxFileBytes`).
    /// Text in UTF-16 with a byte-order mark (what some Windows tools write) is converted to UTF-8.
    static func read(path: String) throws -> SecureBytes {
        let bytes = path == "-" ? try readStandardInput() : try CSVReader.readFile(path: path)
        return try utf8(fromUTF16: bytes, path: path == "-" ? "standard input" : path) ?? bytes
    }

    /// `bytes` as UTF-8 when they start with a UTF-16 byte-order mark
    /// (`FF FE` little endian, `FE FF` big endian); nil when they do not.
    /// - Throws: `TransferError.notUTF8` with the line of a lone surrogate or an odd trailing byte.
    static func utf8(fromUTF16 bytes: SecureBytes, path: String) throws -> SecureBytes? {
        try bytes.withUnsafeBytes { raw -> SecureBytes? in
            let littleEndian: Bool
            if raw.starts(with: [0xFF, 0xFE]) { littleEndian = true } else if raw.starts(with: [0xFE, 0xFF]) { littleEndian = false } else { return nil }
            let out = SecureTextBuffer()
            var line = 1
            var units = stride(from: 2, to: raw.count - 1, by: 2).lazy.map { i -> UInt16 in
                littleEndian ? UInt16(raw[i]) | UInt16(raw[i + 1]) << 8 : UInt16(raw[i]) << 8 | UInt16(raw[i + 1])
            }.makeIterator()
            var decoder = UTF16()
            var encoded = [UInt8](repeating: 0, count: 4)
            loop: while true {
                switch decoder.decode(&units) {
                case .scalarValue(let scalar):
                    if scalar == "\n" { line += 1 }
                    var n = 0
                    for unit in UTF8.encode(scalar)! { encoded[n] = unit; n += 1 }
                    encoded.withUnsafeBytes { out.append(UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
                case .emptyInput: break loop
                case .error: throw TransferError.notUTF8(path: path, line: line)
                }
            }
            encoded.withUnsafeMutableBytes { _ = $0.initializeMemory(as: UInt8.self, repeating: 0) }
            guard raw.count % 2 == 0 else { throw TransferError.notUTF8(path: path, line: line) }
            return out.contents()
        }
    }

    /// Standard input to its end, refused once it passes `CSVReader.maxFileBytes`.
    static func readStandardInput() throws -> SecureBytes {
        let buffer = SecureTextBuffer()
        let chunk = SecureBytes(byteCount: 64 << 10)
        while true {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(0, $0.baseAddress!, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw TransferError.unreadable(path: "standard input", reason: String(cString: strerror(errno)))
            }
            if n == 0 { break }
            chunk.withUnsafeBytes { buffer.append(UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
            if buffer.count > CSVReader.maxFileBytes { throw TransferError.tooLarge(path: "standard input", limit: CSVReader.maxFileBytes) }
        }
        return buffer.contents()
    }
}
