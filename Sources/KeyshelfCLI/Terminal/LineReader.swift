import Glibc
import KeyshelfCrypto

/// Reads one line of secret input from a file descriptor into secure memory.
///
/// Reads byte by byte so that nothing after the first line is consumed: a
/// script may send the master password and an item password on the same
/// descriptor, one per line.
enum LineReader {
    /// The longest line accepted, in bytes.
    static let maximumByteCount = 4096

    /// Reads up to the first `\n` (a trailing `\r` is dropped too).
    /// - Returns: the line without its terminator, or nil when the input
    ///   ended (or was closed) before a single byte.
    /// - Throws: `CLIError` (usage) when the line exceeds `maximumByteCount`,
    ///   or (failure) for a read error such as a bad descriptor, naming `source`.
    static func readLine(fd: Int32, source: String) throws(CLIError) -> Secret? {
        let buffer = SecureBytes(byteCount: maximumByteCount)
        var count = 0
        var sawNewline = false
        var readFailure: Int32 = 0
        buffer.withUnsafeMutableBytes { raw in
            let base = raw.baseAddress!.assumingMemoryBound(to: UInt8.self)
            var byte: UInt8 = 0
            while count <= maximumByteCount {
                let n = Glibc.read(fd, &byte, 1)
                if n < 0 {
                    if errno == EINTR { continue }
                    readFailure = errno
                    break
                }
                if n == 0 { break }
                if byte == UInt8(ascii: "\n") { sawNewline = true; break }
                if count == maximumByteCount { count += 1; break }
                base[count] = byte
                count += 1
            }
            byte = 0
        }
        if readFailure != 0 {
            throw CLIError(.failure, "cannot read \(source): \(String(cString: strerror(readFailure)))")
        }
        if count > maximumByteCount {
            throw CLIError(.usage, "the line read from \(source) is longer than \(maximumByteCount) bytes")
        }
        if count == 0 && !sawNewline { return nil }
        var length = count
        if length > 0, buffer.withUnsafeBytes({ $0[length - 1] }) == UInt8(ascii: "\r") { length -= 1 }
        return Secret(storage: buffer, range: 0..<length).detached()
    }
}
