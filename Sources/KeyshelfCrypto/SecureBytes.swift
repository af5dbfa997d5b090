import CSodium
import Glibc

/// A fixed-size byte buffer in `sodium_malloc` memory: guarded, locked out of
/// swap where `RLIMIT_MEMLOCK` allows (`MemoryLocking` reports once when it
/// does not), and wiped by `sodium_free` when released.
///
/// The bytes are reachable only through `withUnsafeBytes` /
/// `withUnsafeMutableBytes`; equality is constant-time (`sodium_memcmp`).
public final class SecureBytes: @unchecked Sendable {
    private let pointer: UnsafeMutableRawPointer
    /// Number of bytes held.
    public let byteCount: Int

    /// A zero-filled buffer of `byteCount` bytes.
    public init(byteCount: Int) {
        precondition(byteCount >= 0, "negative byte count")
        Sodium.ensureInitialized()
        // sodium_malloc(0) is allowed but returns a pointer we must not touch;
        // one spare byte keeps every pointer usable.
        guard let p = sodium_malloc(max(byteCount, 1)) else {
            fatalError("sodium_malloc(\(byteCount)) failed: out of memory")
        }
        pointer = p
        self.byteCount = byteCount
        sodium_memzero(p, max(byteCount, 1))
        MemoryLocking.lock(p, byteCount: max(byteCount, 1))
    }

    /// A secure copy of `bytes`. The caller should wipe its own copy.
    public convenience init(copying bytes: UnsafeRawBufferPointer) {
        self.init(byteCount: bytes.count)
        if let base = bytes.baseAddress, bytes.count > 0 {
            pointer.copyMemory(from: base, byteCount: bytes.count)
        }
    }

    /// A secure copy of `bytes`.
    public convenience init<C: Collection>(copying bytes: C) where C.Element == UInt8 {
        self.init(byteCount: bytes.count)
        var i = 0
        for b in bytes {
            pointer.storeBytes(of: b, toByteOffset: i, as: UInt8.self)
            i += 1
        }
    }

    /// A secure copy of the UTF-8 form of `string`. The `String` itself cannot
    /// be wiped, so prefer building secrets directly in `SecureBytes`.
    public convenience init(utf8 string: String) {
        var s = string
        self.init(byteCount: s.utf8.count)
        s.withUTF8 { buf in
            if let base = buf.baseAddress, buf.count > 0 {
                pointer.copyMemory(from: base, byteCount: buf.count)
            }
        }
    }

    deinit {
        sodium_free(pointer)
    }

    /// Calls `body` with read access to the bytes; the pointer must not escape.
    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try body(UnsafeRawBufferPointer(start: pointer, count: byteCount))
    }

    /// Calls `body` with write access to the bytes; the pointer must not escape.
    public func withUnsafeMutableBytes<R>(_ body: (UnsafeMutableRawBufferPointer) throws -> R) rethrows -> R {
        try body(UnsafeMutableRawBufferPointer(start: pointer, count: byteCount))
    }

    /// Overwrites every byte with zero (`sodium_memzero`).
    public func wipe() {
        sodium_memzero(pointer, byteCount)
    }

    /// A new buffer holding bytes `range` of this one.
    public func copy(range: Range<Int>) -> SecureBytes {
        precondition(range.lowerBound >= 0 && range.upperBound <= byteCount, "range out of bounds")
        let out = SecureBytes(byteCount: range.count)
        if !range.isEmpty {
            out.pointer.copyMemory(from: pointer + range.lowerBound, byteCount: range.count)
        }
        return out
    }

    /// Constant-time comparison of two equal-length ranges (`sodium_memcmp`).
    /// Lengths are not secret: different lengths compare unequal at once.
    public static func constantTimeEquals(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Bool {
        guard a.count == b.count else { return false }
        guard a.count > 0 else { return true }
        Sodium.ensureInitialized()
        return sodium_memcmp(a.baseAddress!, b.baseAddress!, a.count) == 0
    }

    /// Whether both buffers hold the same bytes, by `memcmp`: fast, and NOT
    /// constant-time. Only for comparing two values this process made itself
    /// (a vault's old and new plaintext, to skip a save that changes
    /// nothing); never for checking a guess, which `==` is for.
    public func hasSameBytes(as other: SecureBytes) -> Bool {
        guard byteCount == other.byteCount else { return false }
        guard byteCount > 0 else { return true }
        return memcmp(pointer, other.pointer, byteCount) == 0
    }
}

extension SecureBytes: Equatable {
    /// Constant-time equality of the contents (`sodium_memcmp`).
    public static func == (lhs: SecureBytes, rhs: SecureBytes) -> Bool {
        lhs.withUnsafeBytes { a in rhs.withUnsafeBytes { b in constantTimeEquals(a, b) } }
    }
}
