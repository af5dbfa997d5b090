import KeyshelfCrypto

/// An append-only byte buffer in sodium memory that doubles as it grows;
/// each outgrown buffer is wiped when released (`SecureBytes`).
final class SecureTextBuffer {
    private var storage = SecureBytes(byteCount: 4096)
    private(set) var count = 0

    func append(_ bytes: UnsafeRawBufferPointer) {
        if count + bytes.count > storage.byteCount {
            var capacity = storage.byteCount
            while capacity < count + bytes.count { capacity *= 2 }
            let bigger = SecureBytes(byteCount: capacity)
            bigger.withUnsafeMutableBytes { out in
                storage.withUnsafeBytes { old in out.baseAddress!.copyMemory(from: old.baseAddress!, byteCount: count) }
            }
            storage = bigger
        }
        storage.withUnsafeMutableBytes { out in
            if let base = bytes.baseAddress { (out.baseAddress! + count).copyMemory(from: base, byteCount: bytes.count) }
        }
        count += bytes.count
    }

    func append(_ text: String) {
        var copy = text
        copy.withUTF8 { append(UnsafeRawBufferPointer($0)) }
    }

    /// The bytes written so far, as a buffer of exactly that size.
    func contents() -> SecureBytes {
        storage.copy(range: 0..<count)
    }
}
