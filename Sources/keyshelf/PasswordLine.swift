import Glibc

/// `add --password-stdin`'s password: the first line of standard input, read
/// as KeyshelfCLI's `LineReader` reads it (byte by byte, so nothing after the
/// line is consumed; at most 4096 bytes; a trailing `\r` dropped), into
/// locked memory.
///
/// Once it is read, the full program can no longer read it from standard
/// input: every hand-back after the read first puts the bytes consumed back
/// (`replay`), so the full program sees the same standard input.
final class PasswordLine {
    /// The longest line accepted, in bytes (`LineReader.maximumByteCount`).
    static let maximumByteCount = 4096

    /// The bytes consumed: the line, `\r` included, then `\n` when one was read.
    private let consumed: LockedBytes
    private var consumedCount = 0
    /// Whether the input could not be read: nothing can be put back then.
    private var readFailed = false

    /// The password (the line without `\n` and a trailing `\r`); nil when
    /// the full program must report on the input (it ended before a byte,
    /// the line is empty or too long, a read failed).
    private(set) var password: UnsafeRawBufferPointer?

    /// Reads the line from descriptor 0.
    /// - Throws: `HandBack.agentTrouble` when no locked memory can be had;
    ///   nothing was read then.
    init() throws(HandBack) {
        // One byte past the limit (which `LineReader` consumes to see the line is too long), and the newline.
        consumed = try LockedBytes(count: Self.maximumByteCount + 2)
        let bytes = consumed.base.assumingMemoryBound(to: UInt8.self)
        var sawNewline = false
        while consumedCount <= Self.maximumByteCount {
            let n = read(0, bytes + consumedCount, 1)
            if n < 0 && errno == EINTR { continue }
            if n < 0 {
                readFailed = true
                return
            }
            if n == 0 { break }
            consumedCount += 1
            if bytes[consumedCount - 1] == 0x0A {
                sawNewline = true
                break
            }
        }
        var length = consumedCount - (sawNewline ? 1 : 0)
        guard length <= Self.maximumByteCount else { return }
        if length > 0 && bytes[length - 1] == 0x0D { length -= 1 }
        if length > 0 { password = UnsafeRawBufferPointer(start: bytes, count: length) }
    }

    /// Puts the bytes consumed back in front of the full program: descriptor
    /// 0 becomes a pipe holding exactly them, so it reads what it would have
    /// read (after a read error, descriptor 0 stays as it is: the full
    /// program meets the error itself). Call it right before `FullProgram.exec`.
    /// When no pipe can be made, says so and exits 1: the full program
    /// would read the next line as the password.
    func replay() {
        guard !readFailed else { return }
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { fail() }
        var done = 0
        // The pipe holds 64 KiB: the few kilobytes at most go in at once.
        while done < consumedCount {
            let n = write(ends[1], consumed.base + done, consumedCount - done)
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { fail() }
            done += n
        }
        close(ends[1])
        // Descriptor 0 was open (it was read), so neither end is 0.
        guard dup2(ends[0], 0) == 0 else { fail() }
        close(ends[0])
    }

    private func fail() -> Never {
        var message = "keyshelf: cannot hand standard input to the full program: \(String(cString: strerror(errno)))\n"
        message.withUTF8 { _ = write(2, $0.baseAddress, $0.count) }
        exit(1)
    }
}
