import Glibc
import KeyshelfCrypto

/// Reads `\n`-ended lines from a descriptor in blocks (one `read` per
/// `blockByteCount` bytes, not per byte), into secure memory. For input that
/// belongs to keyshelf entirely, such as the git helper's standard input:
/// bytes after the last line asked for are read and dropped.
struct BlockLineReader {
    /// The longest line accepted, in bytes (git's `wwwauth[]` lines can be long).
    static let maximumLineByteCount = 64 * 1024
    /// Bytes asked of each `read`.
    static let blockByteCount = 16 * 1024

    private let fd: Int32
    private let source: String
    private let block = SecureBytes(byteCount: BlockLineReader.blockByteCount)
    private var start = 0
    private var end = 0
    private var ended = false

    /// - Parameter source: names the input in errors ("standard input").
    init(fd: Int32, source: String) {
        self.fd = fd
        self.source = source
    }

    /// The next line without its `\n`; a `\r` before it is kept (the caller's rule).
    /// - Returns: nil at end of input before any byte of a line.
    /// - Throws: `CLIError` (usage) for a line over `maximumLineByteCount`
    ///   bytes, (failure) for a read error.
    mutating func readLine() throws(CLIError) -> Secret? {
        let line = SecureBytes(byteCount: Self.maximumLineByteCount)
        var count = 0
        while true {
            if start == end {
                if ended { return count == 0 ? nil : Secret(storage: line, range: 0..<count).detached() }
                try refill()
                continue
            }
            let (length, newline) = block.withUnsafeBytes { bytes -> (Int, Bool) in
                if let index = bytes[start..<end].firstIndex(of: UInt8(ascii: "\n")) { return (index - start, true) }
                return (end - start, false)
            }
            guard count + length <= Self.maximumLineByteCount else {
                throw CLIError(.usage, "a line read from \(source) is longer than \(Self.maximumLineByteCount) bytes")
            }
            line.withUnsafeMutableBytes { target in
                block.withUnsafeBytes { bytes in
                    target.baseAddress!.advanced(by: count).copyMemory(from: bytes.baseAddress!.advanced(by: start), byteCount: length)
                }
            }
            count += length
            start += length
            if newline {
                start += 1
                return Secret(storage: line, range: 0..<count).detached()
            }
        }
    }

    private mutating func refill() throws(CLIError) {
        start = 0
        end = 0
        while true {
            let n = block.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw CLIError(.failure, "cannot read \(source): \(String(cString: strerror(errno)))")
            }
            if n == 0 { ended = true }
            end = n
            return
        }
    }
}
