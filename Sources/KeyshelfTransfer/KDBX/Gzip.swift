import CZlib
import KeyshelfCrypto

/// gzip decompression through zlib (`inflateInit2_` with window bits 15 + 16),
/// into sodium memory, refused past `limit` bytes (a hostile database could
/// otherwise inflate without bound).
enum Gzip {
    /// Why `inflate` gave nothing.
    enum Failure: Error {
        /// Not a complete gzip stream.
        case damaged
        /// It inflates past the limit (checked every 64 KiB, before the rest is inflated).
        case tooLarge
    }

    /// The inflated bytes.
    /// - Throws: `Failure.damaged` when `data` is not a complete gzip stream, `.tooLarge` once it inflates past `limit`.
    static func inflate(_ data: UnsafeRawBufferPointer, limit: Int) throws(Failure) -> SecureBytes {
        var stream = z_stream()
        guard inflateInit2_(&stream, 15 + 16, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else { throw .damaged }
        defer { inflateEnd(&stream) }
        let out = SecureTextBuffer()
        let chunk = SecureBytes(byteCount: 64 << 10)
        stream.next_in = UnsafeMutablePointer(mutating: data.baseAddress?.assumingMemoryBound(to: UInt8.self))
        stream.avail_in = UInt32(data.count)
        while true {
            let (status, produced) = chunk.withUnsafeMutableBytes { buffer -> (Int32, Int) in
                stream.next_out = buffer.baseAddress!.assumingMemoryBound(to: UInt8.self)
                stream.avail_out = UInt32(buffer.count)
                let status = CZlib.inflate(&stream, Z_NO_FLUSH)
                return (status, buffer.count - Int(stream.avail_out))
            }
            chunk.withUnsafeBytes { out.append(UnsafeRawBufferPointer(rebasing: $0[0..<produced])) }
            if out.count > limit { throw .tooLarge }
            if status == Z_STREAM_END { return out.contents() }
            guard status == Z_OK, produced > 0 || stream.avail_in > 0 else { throw .damaged }
        }
    }
}
