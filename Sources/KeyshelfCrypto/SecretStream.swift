import CSodium

/// `crypto_secretstream_xchacha20poly1305` over a whole message, in
/// fixed-size chunks whose last one is tagged FINAL, so truncation,
/// reordering, duplication and tampering are all detected.
///
/// Sealed layout (bytes):
/// - 24: secretstream header
/// - then ⌈n / chunk⌉ chunks (at least one), each `17 + plaintext` bytes,
///   every plaintext chunk `chunkByteCount` long except the last, which holds
///   the rest (possibly 0 bytes) and carries `TAG_FINAL`; all others `TAG_MESSAGE`.
/// Each chunk authenticates `associatedData`.
public enum SecretStream {
    /// Key length in bytes (32).
    public static let keyByteCount = Int(crypto_secretstream_xchacha20poly1305_keybytes())
    /// Stream header length in bytes (24).
    public static let headerByteCount = Int(crypto_secretstream_xchacha20poly1305_headerbytes())
    /// Per-chunk overhead in bytes (17).
    public static let chunkOverheadByteCount = Int(crypto_secretstream_xchacha20poly1305_abytes())

    private static let tagMessage = UInt8(crypto_secretstream_xchacha20poly1305_tag_message())
    private static let tagFinal = UInt8(crypto_secretstream_xchacha20poly1305_tag_final())

    /// The sealed size in bytes of a `plaintextByteCount`-byte message.
    public static func sealedByteCount(plaintextByteCount: Int, chunkByteCount: Int) -> Int {
        let chunks = max(1, (plaintextByteCount + chunkByteCount - 1) / chunkByteCount)
        return headerByteCount + chunks * chunkOverheadByteCount + plaintextByteCount
    }

    /// Seals `plaintext` under `key` (32 bytes).
    /// - Returns: the sealed message, `sealedByteCount(…)` bytes.
    /// - Throws: `CryptoError.invalidLength` for a wrong key size.
    public static func seal(_ plaintext: SecureBytes, key: SecureBytes, chunkByteCount: Int, associatedData: [UInt8]) throws -> [UInt8] {
        var out = [UInt8]()
        out.reserveCapacity(sealedByteCount(plaintextByteCount: plaintext.byteCount, chunkByteCount: chunkByteCount))
        try seal(plaintext, key: key, chunkByteCount: chunkByteCount, associatedData: associatedData) { out.append(contentsOf: $0) }
        return out
    }

    /// Seals `plaintext` under `key` (32 bytes) piece by piece: `output`
    /// receives the stream header, then each sealed chunk, in order
    /// (`sealedByteCount(…)` bytes in all), so a large message can go
    /// straight to a file without a second whole-message buffer. The bytes
    /// passed to `output` are ciphertext, valid only during the call.
    /// - Throws: `CryptoError.invalidLength` for a wrong key size; whatever `output` throws.
    public static func seal(
        _ plaintext: SecureBytes, key: SecureBytes, chunkByteCount: Int, associatedData: [UInt8],
        output: (UnsafeRawBufferPointer) throws -> Void
    ) throws {
        Sodium.ensureInitialized()
        precondition(chunkByteCount > 0, "chunk size must be positive")
        try check(key: key)
        var state = crypto_secretstream_xchacha20poly1305_state()
        defer { sodium_memzero(&state, MemoryLayout.size(ofValue: state)) }
        // One chunk at a time; the sealed chunk of the largest plaintext chunk fits.
        var buffer = [UInt8](repeating: 0, count: max(headerByteCount, min(chunkByteCount, plaintext.byteCount) + chunkOverheadByteCount))
        try buffer.withUnsafeMutableBufferPointer { o in
            let initRC = key.withUnsafeBytes { k in
                crypto_secretstream_xchacha20poly1305_init_push(&state, o.baseAddress!, k.baseAddress!.assumingMemoryBound(to: UInt8.self))
            }
            precondition(initRC == 0, "secretstream init_push failed")
            try output(UnsafeRawBufferPointer(start: o.baseAddress!, count: headerByteCount))
            try plaintext.withUnsafeBytes { p in
                var inOffset = 0
                repeat {
                    let n = min(chunkByteCount, p.count - inOffset)
                    let isLast = inOffset + n == p.count
                    var written: UInt64 = 0
                    let src = p.baseAddress.map { $0.assumingMemoryBound(to: UInt8.self) + inOffset }
                    _ = crypto_secretstream_xchacha20poly1305_push(
                        &state, o.baseAddress!, &written,
                        src, UInt64(n),
                        associatedData, UInt64(associatedData.count),
                        isLast ? tagFinal : tagMessage)
                    precondition(Int(written) == n + chunkOverheadByteCount, "secretstream size mismatch")
                    try output(UnsafeRawBufferPointer(start: o.baseAddress!, count: Int(written)))
                    inOffset += n
                    if isLast { break }
                } while true
            }
        }
    }

    /// Opens a message sealed by `seal` with the same key, chunk size and
    /// associated data. No plaintext is returned unless every chunk
    /// authenticates and the last one, and only the last one, is FINAL.
    /// - Throws: `CryptoError.authenticationFailed` (wrong key, tampering,
    ///   reordering), `CryptoError.truncatedStream` (size impossible for the
    ///   chunking, FINAL missing or early), `CryptoError.invalidLength`.
    public static func open(_ sealed: UnsafeRawBufferPointer, key: SecureBytes, chunkByteCount: Int, associatedData: [UInt8]) throws -> SecureBytes {
        Sodium.ensureInitialized()
        precondition(chunkByteCount > 0, "chunk size must be positive")
        try check(key: key)
        let body = sealed.count - headerByteCount
        guard body >= chunkOverheadByteCount else { throw CryptoError.truncatedStream }
        let fullChunk = chunkByteCount + chunkOverheadByteCount
        let chunks = (body + fullChunk - 1) / fullChunk
        let plaintextByteCount = body - chunks * chunkOverheadByteCount
        guard plaintextByteCount >= 0,
              sealedByteCount(plaintextByteCount: plaintextByteCount, chunkByteCount: chunkByteCount) == sealed.count
        else { throw CryptoError.truncatedStream }

        var state = crypto_secretstream_xchacha20poly1305_state()
        defer { sodium_memzero(&state, MemoryLayout.size(ofValue: state)) }
        let base = sealed.baseAddress!.assumingMemoryBound(to: UInt8.self)
        let initRC = key.withUnsafeBytes { k in
            crypto_secretstream_xchacha20poly1305_init_pull(&state, base, k.baseAddress!.assumingMemoryBound(to: UInt8.self))
        }
        guard initRC == 0 else { throw CryptoError.authenticationFailed }

        let out = SecureBytes(byteCount: plaintextByteCount)
        try out.withUnsafeMutableBytes { o in
            var inOffset = headerByteCount
            var outOffset = 0
            for index in 0..<chunks {
                let chunkLen = min(fullChunk, sealed.count - inOffset)
                var written: UInt64 = 0
                var tag: UInt8 = 0
                // SecureBytes always has a valid base address, even at 0 bytes.
                let dst = o.baseAddress!.assumingMemoryBound(to: UInt8.self) + outOffset
                let rc = crypto_secretstream_xchacha20poly1305_pull(
                    &state, dst, &written, &tag,
                    base + inOffset, UInt64(chunkLen),
                    associatedData, UInt64(associatedData.count))
                guard rc == 0 else {
                    o.initializeMemory(as: UInt8.self, repeating: 0)
                    throw CryptoError.authenticationFailed
                }
                let isLast = index == chunks - 1
                guard (tag == tagFinal) == isLast else {
                    o.initializeMemory(as: UInt8.self, repeating: 0)
                    throw CryptoError.truncatedStream
                }
                inOffset += chunkLen
                outOffset += Int(written)
            }
        }
        return out
    }

    private static func check(key: SecureBytes) throws {
        guard key.byteCount == keyByteCount else {
            throw CryptoError.invalidLength(what: "key", expectedByteCount: keyByteCount, actualByteCount: key.byteCount)
        }
    }
}
