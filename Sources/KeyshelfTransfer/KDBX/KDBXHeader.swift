/// The outer header of a KeePass 2 database (KDBX 3.1 and 4), as KeePassXC
/// writes it (docs/import.md, "KeePassXC databases"):
///
/// ```
/// signature 03 D9 A2 9A 67 FB 4B B5 · minor u16 · major u16 (3 or 4)
/// fields: id u8 · length (u16 in 3.x, u32 in 4) · data, until id 0
///   2 cipher UUID · 3 compression u32 (1 = gzip) · 4 master seed (32)
///   5 transform seed (3.x) · 6 transform rounds u64 (3.x) · 7 encryption IV
///   8 protected stream key (3.x) · 9 stream start bytes (3.x) · 10 inner stream id u32 (3.x)
///   11 KDF parameters, a variant dictionary (4) · 12 public custom data (4)
/// ```
/// All integers little endian.
struct KDBXHeader {
    static let aesCipher: [UInt8] = [0x31, 0xC1, 0xF2, 0xE6, 0xBF, 0x71, 0x43, 0x50, 0xBE, 0x58, 0x05, 0x21, 0x6A, 0xFC, 0x5A, 0xFF]
    static let chachaCipher: [UInt8] = [0xD6, 0x03, 0x8A, 0x2B, 0x8B, 0x6F, 0x4C, 0xB5, 0xA5, 0x24, 0x33, 0x9A, 0x31, 0xDB, 0xB5, 0x9A]
    static let aesKDF: [UInt8] = [0xC9, 0xD9, 0xF3, 0x9A, 0x62, 0x8A, 0x44, 0x60, 0xBF, 0x74, 0x0D, 0x08, 0xC1, 0x8A, 0x4F, 0xEA]
    static let aesKDF4: [UInt8] = [0x7C, 0x02, 0xBB, 0x82, 0x79, 0xA7, 0x4A, 0xC0, 0x92, 0x7D, 0x11, 0x4A, 0x00, 0x64, 0x82, 0x38]
    static let argon2d: [UInt8] = [0xEF, 0x63, 0x6D, 0xDF, 0x8C, 0x29, 0x44, 0x4B, 0x91, 0xF7, 0xA9, 0xA4, 0x03, 0xE3, 0x0A, 0x0C]
    static let argon2id: [UInt8] = [0x9E, 0x29, 0x8B, 0x19, 0x56, 0xDB, 0x47, 0x73, 0xB2, 0x3D, 0xFC, 0x3E, 0xC6, 0xF0, 0xA1, 0xE6]

    var major: Int = 0
    var fields: [UInt8: [UInt8]] = [:]
    /// Bytes of the header from the signature to the end of the end field (what KDBX 4's header hash and HMAC cover).
    var length = 0
    /// KDBX 4's KDF parameters (`$UUID`, `S`, `R`, `I`, `M`, `P`, `V`), decoded.
    var kdfParameters: [String: [UInt8]] = [:]

    struct Malformed: Error { let reason: String }

    init(_ bytes: UnsafeRawBufferPointer) throws {
        guard bytes.count >= 12 else { throw Malformed(reason: "the header is truncated") }
        major = Int(Self.uint(bytes, 10, 2))
        guard major == 3 || major == 4 else { throw Malformed(reason: "KDBX version \(major) is not supported (3.1 and 4 are)") }
        var at = 12
        while true {
            let sizeBytes = major == 4 ? 4 : 2
            guard at + 1 + sizeBytes <= bytes.count else { throw Malformed(reason: "the header is truncated") }
            let id = bytes[at]
            let size = Int(Self.uint(bytes, at + 1, sizeBytes))
            at += 1 + sizeBytes
            guard size <= 1 << 20, at + size <= bytes.count else { throw Malformed(reason: "the header is truncated") }
            fields[id] = Array(bytes[at..<at + size])
            at += size
            if id == 0 { break }
        }
        length = at
        if major == 4, let dictionary = fields[11] { kdfParameters = try Self.variantDictionary(dictionary) }
    }

    /// Little-endian unsigned integer of `count` bytes at `offset`.
    static func uint(_ bytes: UnsafeRawBufferPointer, _ offset: Int, _ count: Int) -> UInt64 {
        (0..<count).reduce(0) { $0 | UInt64(bytes[offset + $1]) << (8 * UInt64($1)) }
    }

    static func uint(_ bytes: [UInt8]?) -> UInt64? {
        guard let bytes, bytes.count <= 8 else { return nil }
        return bytes.withUnsafeBytes { uint($0, 0, bytes.count) }
    }

    /// KDBX 4's variant dictionary: version u16, then items `type u8 · name length u32 · name · value length u32 · value`, ending with type 0.
    static func variantDictionary(_ data: [UInt8]) throws -> [String: [UInt8]] {
        var result: [String: [UInt8]] = [:]
        var at = 2
        while at < data.count {
            let type = data[at]
            if type == 0 { return result }
            guard at + 5 <= data.count else { break }
            let nameLength = Int(data.withUnsafeBytes { uint($0, at + 1, 4) })
            guard at + 5 + nameLength + 4 <= data.count else { break }
            let name = String(decoding: data[(at + 5)..<(at + 5 + nameLength)], as: UTF8.self)
            let valueAt = at + 5 + nameLength
            let valueLength = Int(data.withUnsafeBytes { uint($0, valueAt, 4) })
            guard valueAt + 4 + valueLength <= data.count else { break }
            result[name] = Array(data[(valueAt + 4)..<(valueAt + 4 + valueLength)])
            at = valueAt + 4 + valueLength
        }
        throw Malformed(reason: "the KDF parameters are truncated")
    }
}
