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
    static func read(path: String) throws -> SecureBytes {
        path == "-" ? try readStandardInput() : try CSVReader.readFile(path: path)
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
