import Glibc

/// Writes bytes to a file descriptor (standard output or error), retrying
/// short writes. A closed pipe is ignored: the reader went away.
struct FileOutput: Sendable {
    let fd: Int32

    static let standardOutput = FileOutput(fd: STDOUT_FILENO)
    static let standardError = FileOutput(fd: STDERR_FILENO)

    func write(_ text: String) {
        var text = text
        text.withUTF8 { write($0) }
    }

    func write(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard var pointer = bytes.baseAddress else { return }
        var remaining = bytes.count
        while remaining > 0 {
            let written = Glibc.write(fd, pointer, remaining)
            if written < 0 {
                if errno == EINTR { continue }
                return
            }
            pointer += written
            remaining -= written
        }
    }

    /// Writes `bytes` and then zeroes them, for output that holds a password.
    func writeAndWipe(_ bytes: inout [UInt8]) {
        bytes.withUnsafeBufferPointer { write($0) }
        bytes.withUnsafeMutableBytes { raw in
            if let base = raw.baseAddress { memset(base, 0, raw.count) }
        }
    }
}
