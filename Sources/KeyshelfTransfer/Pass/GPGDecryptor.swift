import Foundation
import Glibc
import KeyshelfCrypto

/// Decrypts one file with the user's `gpg` (`gpg --quiet --yes --decrypt FILE`, as pass does),
/// found on `PATH`. gpg-agent asks for the key's passphrase itself (pinentry);
/// keyshelf never sees it. The plaintext is read from a pipe straight into
/// sodium memory.
struct GPGDecryptor: Sendable {
    /// The `gpg` executable.
    let executable: URL

    /// The first `gpg` on `PATH`; nil when there is none.
    static func locate(path: String = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin") -> GPGDecryptor? {
        for directory in path.split(separator: ":") where !directory.isEmpty {
            let candidate = "\(directory)/gpg"
            if access(candidate, X_OK) == 0 { return GPGDecryptor(executable: URL(fileURLWithPath: candidate)) }
        }
        return nil
    }

    /// The decrypted content of `file`, at most `limit` bytes.
    /// - Throws: `TransferError.unreadable` naming the file and gpg's last
    ///   line of error output when gpg cannot decrypt it (no secret key, the
    ///   passphrase was not given, a damaged file) or the plaintext is larger than `limit`.
    func decrypt(_ file: String, limit: Int) throws -> SecureBytes {
        let output = Pipe()
        let errors = Pipe()
        let process = Process()
        process.executableURL = executable
        process.arguments = ["--quiet", "--yes", "--decrypt", "--", file]
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = output
        process.standardError = errors
        do {
            try process.run()
        } catch {
            throw TransferError.unreadable(path: file, reason: "cannot run \(executable.path): \(error.localizedDescription)")
        }
        try? output.fileHandleForWriting.close()
        try? errors.fileHandleForWriting.close()
        let buffer = SecureTextBuffer()
        let chunk = SecureBytes(byteCount: 16 << 10)
        let fd = output.fileHandleForReading.fileDescriptor
        var tooLarge = false
        while true {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress!, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break }
            if buffer.count + n > limit { tooLarge = true; continue }
            chunk.withUnsafeBytes { buffer.append(UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
        }
        let stderr = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationReason == .exit, process.terminationStatus == 0 else {
            let lines = String(decoding: stderr, as: UTF8.self).split(separator: "\n")
            let reason = lines.last.map { "gpg: " + String($0).replacingOccurrences(of: "gpg: ", with: "") } ?? "gpg failed"
            throw TransferError.unreadable(path: file, reason: "\(reason) (gpg exit \(process.terminationStatus))")
        }
        if tooLarge { throw TransferError.tooLarge(path: file, limit: limit) }
        return buffer.contents()
    }
}
