import KeyshelfCrypto
import KeyshelfVault

/// The agent's wire format, version 2 (docs/agent-protocol.md is the
/// byte-level reference). One request and one reply per connection, each a
/// frame: a little-endian `u32` byte count, then that many bytes. Frames are
/// built and read in `SecureBytes` because some carry password keys or
/// passwords.
enum AgentProtocol {
    static let version: UInt8 = 2
    /// Largest request body the agent accepts, in bytes (64 MiB: a request
    /// carries one password, but its relayed consent answers name accounts,
    /// which may be long).
    static let maximumRequestByteCount = 64 << 20
    /// Largest reply body a client accepts, in bytes (64 MiB: a listing of
    /// 100 000 credentials is about 6 MiB).
    static let maximumReplyByteCount = 64 << 20
    /// Largest number of password keys in one frame.
    static let maximumKeyCount = 8
    /// Largest number of consent answers one request carries (one per round trip).
    static let maximumAnswerCount = 8

    /// Request operation codes (request byte 1).
    enum Operation: UInt8 {
        case status = 1, unlock = 2, keys = 3, lock = 4
        // 8 was `add` (one store) before issue 13; `change` (9) writes every
        // store holding the account, so an older agent answers it `badRequest`.
        // An agent older than `delete` (10) and `deleteGeneric` (11) answers
        // them `badRequest` too, and the client deletes directly. 7 was
        // `search` of web logins only; `search` (12) answers generic passwords
        // too, so an older agent answers it `badRequest` and the client
        // searches directly.
        case get = 5, list = 6, change = 9, delete = 10, deleteGeneric = 11, search = 12
        // Issue 12 item 2: login's vault steps, export and import. An agent
        // without them answers `badRequest`, and the client performs them directly.
        case lookup = 13, suggestPassword = 14, saveLogin = 15, export = 16, planImport = 17, importLogins = 18
        // Issue 12 item 2, `passwd`. An agent without it answers `badRequest`,
        // and the client changes the password directly (then locks that agent).
        case changeMasterPassword = 19
        // Issue 15 item 3: `edit` through the agent (an edit at 100k in
        // milliseconds, not a vault decode). An agent without them answers
        // `badRequest`, and the client edits directly.
        case edit = 20, editGeneric = 21
    }

    /// Reply status codes (reply byte 1).
    enum Reply: UInt8 {
        case ok = 0, locked = 1, badRequest = 2, unsupportedVersion = 3
        /// The operation needs the user's answer to a consent request first.
        case consentNeeded = 4
        /// The operation failed with a Keychain status (`KeychainError`).
        case failed = 5
        /// The agent cannot answer this one (an item that re-asks the master
        /// password, a vault error): the client opens the vault itself.
        case useVault = 6
        /// A vault error met by an operation the client must not repeat
        /// directly (`changeMasterPassword`: the files may have been
        /// replaced): the client reports it as its own.
        case vaultFailed = 7
    }

    struct MalformedFrame: Error {
        var reason: String
    }
}

/// Writes one frame into a `SecureBytes` buffer that grows as needed (the
/// old buffer is freed, and so wiped, by libsodium). The buffer starts with
/// room for the `u32` byte count, so a frame goes out in one write: the
/// peer wakes once, not once for the count and again for the body.
struct FrameWriter {
    private static let prefixByteCount = MemoryLayout<UInt32>.size
    private(set) var buffer: SecureBytes
    /// Bytes used in `buffer`, the byte-count prefix included.
    private var used = FrameWriter.prefixByteCount

    /// - Parameter capacity: initial buffer size in bytes.
    init(capacity: Int = 4096) {
        buffer = SecureBytes(byteCount: max(capacity, 2 * Self.prefixByteCount))
    }

    /// Bytes of the body written so far.
    var byteCount: Int { used - Self.prefixByteCount }

    /// Makes room for `count` more bytes: called with a large reply's exact
    /// size first, the buffer is allocated once instead of doubling (each
    /// doubling a new `sodium_malloc`, a copy, and both buffers alive).
    mutating func reserve(_ count: Int) {
        guard used + count > buffer.byteCount else { return }
        // Doubling, or exactly what a larger reservation asks.
        let capacity = max(buffer.byteCount * 2, used + count)
        let grown = SecureBytes(byteCount: capacity)
        grown.withUnsafeMutableBytes { out in
            buffer.withUnsafeBytes { old in
                out.baseAddress!.copyMemory(from: old.baseAddress!, byteCount: used)
            }
        }
        buffer = grown
    }

    mutating func bytes(_ source: UnsafeRawBufferPointer) {
        reserve(source.count)
        buffer.withUnsafeMutableBytes { out in
            if let base = source.baseAddress, source.count > 0 {
                (out.baseAddress! + used).copyMemory(from: base, byteCount: source.count)
            }
        }
        used += source.count
    }

    mutating func integer<T: FixedWidthInteger>(_ value: T) {
        withUnsafeBytes(of: value.littleEndian) { bytes($0) }
    }

    /// `u32` byte count, then UTF-8.
    mutating func string(_ value: String) {
        var value = value
        value.withUTF8 { utf8 in
            integer(UInt32(utf8.count))
            bytes(UnsafeRawBufferPointer(utf8))
        }
    }

    /// `u8` 0, or `u8` 1 then the string.
    mutating func optionalString(_ value: String?) {
        integer(UInt8(value == nil ? 0 : 1))
        if let value { string(value) }
    }

    /// `u32` byte count, then the secret's bytes.
    mutating func secret(_ value: Secret) {
        integer(UInt32(value.byteCount))
        value.withUnsafeBytes { bytes($0) }
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

    /// The written body.
    func withBody<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try buffer.withUnsafeBytes { try body(UnsafeRawBufferPointer(rebasing: $0[Self.prefixByteCount..<used])) }
    }

    /// The whole frame: the little-endian `u32` body byte count, then the body.
    func withFrame<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        buffer.withUnsafeMutableBytes { $0.storeBytes(of: UInt32(byteCount).littleEndian, toByteOffset: 0, as: UInt32.self) }
        return try buffer.withUnsafeBytes { try body(UnsafeRawBufferPointer(rebasing: $0[0..<used])) }
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

    /// A `u8` that must be 0 or 1.
    mutating func flag() throws -> Bool {
        switch try integer(UInt8.self) {
        case 0: return false
        case 1: return true
        default: throw AgentProtocol.MalformedFrame(reason: "a flag that is neither 0 nor 1")
        }
    }

    mutating func string() throws -> String {
        let count = Int(try integer(UInt32.self))
        let range = try take(count)
        return try buffer.withUnsafeBytes {
            guard let text = String(validating: UnsafeRawBufferPointer(rebasing: $0[range]).assumingMemoryBound(to: UInt8.self), as: UTF8.self) else {
                throw AgentProtocol.MalformedFrame(reason: "text that is not UTF-8")
            }
            return text
        }
    }

    mutating func optionalString() throws -> String? {
        try flag() ? try string() : nil
    }

    /// A copy of the secret bytes in its own sodium buffer.
    mutating func secret() throws -> Secret {
        let range = try take(Int(try integer(UInt32.self)))
        return Secret(buffer.copy(range: range))
    }

    /// A secret sharing the frame's buffer (no allocation per secret, for
    /// the many passwords of an import or an export); the buffer lives as
    /// long as any of them.
    mutating func sharedSecret() throws -> Secret {
        Secret(storage: buffer, range: try take(Int(try integer(UInt32.self))))
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
