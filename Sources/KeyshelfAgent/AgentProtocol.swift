import KeyshelfCrypto
import KeyshelfVault

/// The agent's wire format, version 1 (docs/agent-protocol.md is the
/// byte-level reference). One request and one reply per connection, each a
/// frame: a little-endian `u32` byte count, then that many bytes, at most
/// `maximumFrameByteCount`. Frames are built and read in `SecureBytes`
/// because some carry password keys.
enum AgentProtocol {
    static let version: UInt8 = 1
    /// Largest frame body accepted, in bytes.
    static let maximumFrameByteCount = 16 * 1024
    /// Largest number of password keys in one frame.
    static let maximumKeyCount = 8

    /// Request operation codes (request byte 1).
    enum Operation: UInt8 {
        case status = 1, unlock = 2, keys = 3, lock = 4
    }

    /// Reply status codes (reply byte 1).
    enum Reply: UInt8 {
        case ok = 0, locked = 1, badRequest = 2, unsupportedVersion = 3
    }

    struct MalformedFrame: Error {
        var reason: String
    }
}

/// Writes one frame body into a fixed `SecureBytes` buffer.
struct FrameWriter {
    let buffer = SecureBytes(byteCount: AgentProtocol.maximumFrameByteCount)
    private(set) var byteCount = 0

    mutating func bytes(_ source: UnsafeRawBufferPointer) {
        precondition(byteCount + source.count <= buffer.byteCount, "agent frame too large")
        buffer.withUnsafeMutableBytes { out in
            if let base = source.baseAddress, source.count > 0 {
                (out.baseAddress! + byteCount).copyMemory(from: base, byteCount: source.count)
            }
        }
        byteCount += source.count
    }

    mutating func integer<T: FixedWidthInteger>(_ value: T) {
        withUnsafeBytes(of: value.littleEndian) { bytes($0) }
    }

    /// `u16` byte count, then UTF-8.
    mutating func string(_ value: String) {
        let utf8 = Array(value.utf8)
        integer(UInt16(utf8.count))
        utf8.withUnsafeBytes { bytes($0) }
    }

    /// `u8` count, then per key: `u64` opslimit, `u64` memlimit bytes,
    /// 16-byte salt, `u16` key byte count, key bytes.
    mutating func keys(_ keys: [VaultPasswordKey]) {
        integer(UInt8(keys.count))
        for key in keys {
            integer(key.limits.opslimit)
            integer(key.limits.memlimitBytes)
            key.salt.withUnsafeBytes { bytes($0) }
            integer(UInt16(key.key.byteCount))
            key.key.withUnsafeBytes { bytes($0) }
        }
    }

    /// The written bytes.
    func withBody<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try buffer.withUnsafeBytes { try body(UnsafeRawBufferPointer(rebasing: $0[0..<byteCount])) }
    }
}

/// Reads one frame body, every read bounds-checked.
struct FrameReader {
    let buffer: SecureBytes
    private var offset = 0

    init(_ buffer: SecureBytes) {
        self.buffer = buffer
    }

    var isAtEnd: Bool { offset == buffer.byteCount }

    private mutating func take(_ count: Int) throws -> Range<Int> {
        guard count >= 0, count <= buffer.byteCount - offset else {
            throw AgentProtocol.MalformedFrame(reason: "frame ends early")
        }
        defer { offset += count }
        return offset..<(offset + count)
    }

    mutating func integer<T: FixedWidthInteger>(_ type: T.Type) throws -> T {
        let range = try take(MemoryLayout<T>.size)
        return buffer.withUnsafeBytes { T(littleEndian: $0.loadUnaligned(fromByteOffset: range.lowerBound, as: T.self)) }
    }

    mutating func string() throws -> String {
        let count = Int(try integer(UInt16.self))
        let range = try take(count)
        return try buffer.withUnsafeBytes {
            guard let text = String(validating: UnsafeRawBufferPointer(rebasing: $0[range]).assumingMemoryBound(to: UInt8.self), as: UTF8.self) else {
                throw AgentProtocol.MalformedFrame(reason: "text that is not UTF-8")
            }
            return text
        }
    }

    mutating func keys() throws -> [VaultPasswordKey] {
        let count = Int(try integer(UInt8.self))
        guard count <= AgentProtocol.maximumKeyCount else { throw AgentProtocol.MalformedFrame(reason: "too many keys") }
        var keys: [VaultPasswordKey] = []
        for _ in 0..<count {
            let limits = PasswordHashLimits(opslimit: try integer(UInt64.self), memlimitBytes: try integer(UInt64.self))
            let saltRange = try take(PasswordHash.saltByteCount)
            let salt = buffer.withUnsafeBytes { Array($0[saltRange]) }
            let keyRange = try take(Int(try integer(UInt16.self)))
            let key = buffer.copy(range: keyRange)
            keys.append(VaultPasswordKey(salt: salt, limits: limits, key: key))
        }
        return keys
    }
}
