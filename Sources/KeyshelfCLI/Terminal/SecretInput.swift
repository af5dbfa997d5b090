import Glibc
import KeyshelfCrypto

/// Reads a whole secret input (a `.p8` key file on standard input) into secure memory.
enum SecretInput {
    /// Reads `fd` to its end, at most `maximumByteCount` bytes.
    /// - Returns: the bytes read (possibly none).
    /// - Throws: `CLIError` (usage) when the input is longer, (failure) for a read error, naming `source`.
    static func readToEnd(fd: Int32, source: String, maximumByteCount: Int = 16_384) throws(CLIError) -> Secret {
        let buffer = SecureBytes(byteCount: maximumByteCount + 1)
        var count = 0
        var readFailure: Int32 = 0
        buffer.withUnsafeMutableBytes { raw in
            while count <= maximumByteCount {
                let n = Glibc.read(fd, raw.baseAddress! + count, maximumByteCount + 1 - count)
                if n < 0 {
                    if errno == EINTR { continue }
                    readFailure = errno
                    break
                }
                if n == 0 { break }
                count += n
            }
        }
        if readFailure != 0 { throw CLIError(.failure, "cannot read \(source): \(String(cString: strerror(readFailure)))") }
        if count > maximumByteCount { throw CLIError(.usage, "\(source) holds more than \(maximumByteCount) bytes; nothing was saved") }
        return Secret(storage: buffer, range: 0..<count).detached()
    }
}
