import CSystem
import Glibc
import KeyshelfCrypto

/// The controlling terminal (`/dev/tty`), used for the master password,
/// consent prompts and questions. Standard input and output may belong to
/// a pipe or to git; the terminal never does. Sendable: the descriptor never
/// changes, and the CLI asks one question at a time.
final class Terminal: @unchecked Sendable {
    let fd: Int32

    private init(fd: Int32) { self.fd = fd }

    deinit { close(fd) }

    /// Opens `/dev/tty`; nil when the process has no controlling terminal
    /// (cron, CI, a test runner, a daemonised git).
    static func open() -> Terminal? {
        let fd = Glibc.open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        return Terminal(fd: fd)
    }

    func write(_ text: String) {
        FileOutput(fd: fd).write(text)
    }

    /// Shows `prompt` and reads a line with echo on (user names, answers).
    /// - Returns: the line, or nil at end of input (Ctrl-D).
    func readLine(prompt: String) throws(CLIError) -> String? {
        write(prompt)
        guard let line = try LineReader.readLine(fd: fd, source: "the terminal") else { return nil }
        return line.unsafeString() ?? ""
    }

    /// Shows `prompt` and reads a line with echo off (passwords).
    /// - Returns: the secret, or nil at end of input (Ctrl-D).
    func readSecret(prompt: String) throws(CLIError) -> Secret? {
        write(prompt)
        let token = keyshelf_tty_echo_off(fd)
        if token >= 0 { EchoGuard.arm(fd: fd, token: token) }
        defer {
            if token >= 0 {
                keyshelf_tty_echo_restore(fd, token)
                EchoGuard.disarm()
            }
            write("\n")
        }
        return try LineReader.readLine(fd: fd, source: "the terminal")
    }
}

/// Restores terminal echo when the user presses Ctrl-C (or the process is
/// terminated) while a password is being typed, then lets the signal act.
private enum EchoGuard {
    // Written before the handler is installed and read only inside it.
    nonisolated(unsafe) static var fd: Int32 = -1
    nonisolated(unsafe) static var token: Int32 = -1

    static func arm(fd: Int32, token: Int32) {
        EchoGuard.fd = fd
        EchoGuard.token = token
        for signal in [SIGINT, SIGTERM, SIGHUP, SIGQUIT] {
            Glibc.signal(signal, echoGuardHandler)
        }
    }

    static func disarm() {
        for signal in [SIGINT, SIGTERM, SIGHUP, SIGQUIT] {
            Glibc.signal(signal, SIG_DFL)
        }
        fd = -1
    }
}

private func echoGuardHandler(_ signal: Int32) {
    if EchoGuard.fd >= 0 {
        keyshelf_tty_echo_restore(EchoGuard.fd, EchoGuard.token)
        _ = Glibc.write(EchoGuard.fd, "\n", 1)
    }
    Glibc.signal(signal, SIG_DFL)
    raise(signal)
}
