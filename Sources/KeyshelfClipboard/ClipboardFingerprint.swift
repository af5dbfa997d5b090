import KeyshelfCrypto

/// What keyshelf remembers of a value it copied, to tell later whether the
/// clipboard still holds it: a random key and the keyed BLAKE2b digest of the
/// value (`crypto_generichash`), never the value itself. The detached clearer
/// receives only this, on a pipe.
public struct ClipboardFingerprint: Sendable {
    /// Bytes on the wire: the key, then the digest.
    static let byteCount = GenericHash.keyByteCount + digestByteCount
    static let digestByteCount = 32

    private let key: SecureBytes
    private let digest: SecureBytes
    /// Length of the value in bytes (tmux lists its buffers' sizes, so only buffers of this size are read back).
    public let valueByteCount: Int

    /// The fingerprint of `value` under a new random key.
    public init(of value: Secret) {
        key = Random.secureBytes(GenericHash.keyByteCount)
        digest = Self.digest(value, key: key)
        valueByteCount = value.byteCount
    }

    /// A fingerprint read back from `serialized` (`byteCount` bytes plus the value's length).
    init?(serialized: SecureBytes, valueByteCount: Int) {
        guard serialized.byteCount == Self.byteCount else { return nil }
        key = serialized.copy(range: 0..<GenericHash.keyByteCount)
        digest = serialized.copy(range: GenericHash.keyByteCount..<Self.byteCount)
        self.valueByteCount = valueByteCount
    }

    /// Key and digest, for the clearer's pipe.
    func serialized() -> SecureBytes {
        let out = SecureBytes(byteCount: Self.byteCount)
        out.withUnsafeMutableBytes { o in
            key.withUnsafeBytes { o.copyMemory(from: $0) }
            digest.withUnsafeBytes { UnsafeMutableRawBufferPointer(rebasing: o[GenericHash.keyByteCount...]).copyMemory(from: $0) }
        }
        return out
    }

    /// Whether `value` is the value fingerprinted (constant-time digest comparison, `sodium_memcmp`).
    public func matches(_ value: Secret) -> Bool {
        value.byteCount == valueByteCount && Self.digest(value, key: key) == digest
    }

    private static func digest(_ value: Secret, key: SecureBytes) -> SecureBytes {
        var bytes = value.withUnsafeBytes { GenericHash.hash($0, key: key, byteCount: digestByteCount) }
        defer { bytes.withUnsafeMutableBytes { _ = $0.initializeMemory(as: UInt8.self, repeating: 0) } }
        return SecureBytes(copying: bytes)
    }
}
