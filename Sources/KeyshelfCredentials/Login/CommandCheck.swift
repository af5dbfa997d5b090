import Foundation
import Glibc
import KeyshelfCrypto

/// `--check CMD` (DESIGN §4 step 4, issue 3 item 5): runs `/bin/sh -c CMD`
/// with the credential on standard input; exit status 0 means accepted.
///
/// Standard input holds two lines: the account, then the password, each
/// ending in "\n". The environment adds `KEYSHELF_SERVER` (display form),
/// `KEYSHELF_HOST` (A-label), `KEYSHELF_PORT` (the effective port) and
/// `KEYSHELF_ACCOUNT` — never the password. The command's standard output
/// goes to standard error, so it cannot mix with keyshelf's own output.
public struct CommandCheck: CredentialCheck {
    /// The shell command line.
    public var command: String

    public init(command: String) {
        self.command = command
    }

    /// Runs the command and waits for it.
    /// - Throws: `KeychainError(.param)` when the shell cannot be started.
    public func accepts(server: ServerName, account: String, password: Secret) throws -> Bool {
        // A socket rather than a pipe: `send(MSG_NOSIGNAL)` cannot raise
        // SIGPIPE when the command exits without reading its input.
        var fds: [Int32] = [-1, -1]
        // Close-on-exec: the child gets its end only as standard input (dup2 clears the flag).
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &fds) == 0 else {
            throw KeychainError.param("cannot run the check command: socketpair failed (errno \(errno))")
        }
        let ours = fds[0]
        let childInput = FileHandle(fileDescriptor: fds[1], closeOnDealloc: true)
        defer { close(ours) }

        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", command]
        process.standardInput = childInput
        process.standardOutput = FileHandle.standardError
        var environment = ProcessInfo.processInfo.environment
        environment["KEYSHELF_SERVER"] = server.display
        environment["KEYSHELF_HOST"] = server.host
        environment["KEYSHELF_PORT"] = String(server.effectivePort)
        environment["KEYSHELF_ACCOUNT"] = account
        process.environment = environment
        do {
            try process.run()
        } catch {
            throw KeychainError.param("cannot run the check command: \(error.localizedDescription)")
        }
        try? childInput.close()

        Self.send(ours, Array(account.utf8) + [UInt8(ascii: "\n")])
        password.withUnsafeBytes { Self.send(ours, $0) }
        Self.send(ours, [UInt8(ascii: "\n")])
        shutdown(ours, Int32(SHUT_WR))
        process.waitUntilExit()
        return process.terminationReason == .exit && process.terminationStatus == 0
    }

    private static func send(_ fd: Int32, _ bytes: [UInt8]) {
        bytes.withUnsafeBytes { send(fd, $0) }
    }

    /// Writes all of `bytes`, giving up quietly when the command stopped reading.
    private static func send(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) {
        var offset = 0
        while offset < bytes.count {
            let n = Glibc.send(fd, bytes.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL))
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return }
            offset += n
        }
    }
}
