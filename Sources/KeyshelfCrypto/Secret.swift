/// A secret value (a password) held as a byte range of a `SecureBytes` buffer.
///
/// Many secrets can share one buffer: a decoded vault keeps every password in
/// its single sodium-allocated plaintext and hands out ranges, instead of one
/// guarded allocation (several pages) per password. The buffer is wiped when
/// the last `Secret` referring to it is gone.
public struct Secret: Sendable {
    private let storage: SecureBytes
    private let range: Range<Int>

    /// A secret covering `range` of `storage` (bytes).
    public init(storage: SecureBytes, range: Range<Int>) {
        precondition(range.lowerBound >= 0 && range.upperBound <= storage.byteCount, "range out of bounds")
        self.storage = storage
        self.range = range
    }

    /// A secret that owns all of `storage`.
    public init(_ storage: SecureBytes) {
        self.init(storage: storage, range: 0..<storage.byteCount)
    }

    /// A secret holding a copy of the UTF-8 bytes of `string`.
    public init(utf8 string: String) {
        self.init(SecureBytes(utf8: string))
    }

    /// Length in bytes.
    public var byteCount: Int { range.count }

    /// Calls `body` with read access to the secret bytes; the pointer must not escape.
    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try storage.withUnsafeBytes { all in
            try body(UnsafeRawBufferPointer(rebasing: all[range]))
        }
    }

    /// An independent copy in its own buffer, so a large shared buffer can be released.
    public func detached() -> Secret {
        Secret(storage.copy(range: range))
    }

    /// The secret as a `String`, for the few places that must hand text to a
    /// library or a terminal. The `String` cannot be wiped; keep it short-lived.
    /// Returns nil when the bytes are not valid UTF-8.
    public func unsafeString() -> String? {
        withUnsafeBytes { String(validating: $0.bindMemory(to: UInt8.self), as: UTF8.self) }
    }

    /// Whether the secret contains `byte` (e.g. a newline or NUL that a protocol cannot carry).
    public func contains(byte: UInt8) -> Bool {
        withUnsafeBytes { $0.contains(byte) }
    }
}

extension Secret: Equatable {
    /// Constant-time equality of the secret bytes.
    public static func == (lhs: Secret, rhs: Secret) -> Bool {
        lhs.withUnsafeBytes { a in rhs.withUnsafeBytes { b in SecureBytes.constantTimeEquals(a, b) } }
    }
}
