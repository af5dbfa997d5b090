import CSystem
import Foundation
import KeyshelfCrypto

/// One run of a clipboard helper (`xclip`, `wl-copy`, `wl-paste`, `tmux`) that
/// nothing waits on for longer than `timeoutSeconds`.
///
/// `xclip -in` and `wl-copy` fork a server that keeps serving the selection:
/// the helper starts in its own session with standard error (and, when
/// writing, standard output) on /dev/null and every other descriptor closed,
/// so the server holds nothing of ours. The secret goes in on standard input
/// (a socket, so a helper that died raises no SIGPIPE), never in argv.
struct HelperProcess {
    /// Seconds a helper may take before it counts as failed and is killed.
    static let timeoutSeconds = 3.0
    /// Largest output read back, in bytes; a longer clipboard is not ours.
    static let maximumOutputByteCount = 65_536

    /// Executable path first, then the arguments (no secret).
    let command: [String]
    /// The helper's whole environment.
    let environment: [String: String]

    /// Runs the helper with `input` on standard input.
    /// - Returns: true when it read its input and exited 0 within the timeout.
    func run(input: Secret?) -> Bool {
        guard let pair = Self.socketPair() else { return false }
        let pid = spawn(stdin: pair[0], stdout: -1)
        close(pair[0])
        defer { close(pair[1]) }
        guard let pid else { return false }
        let deadline = Date().addingTimeInterval(Self.timeoutSeconds)
        var written = true
        input?.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                guard wait(pair[1], events: Int16(POLLOUT), until: deadline) else { written = false; return }
                let n = send(pair[1], raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else { written = false; return }
                offset += n
            }
        }
        shutdown(pair[1], Int32(SHUT_WR))
        return reap(pid, until: deadline) && written
    }

    /// Runs the helper and reads its standard output.
    /// - Returns: the output, or nil when it failed, timed out or wrote more than `maximumOutputByteCount`.
    func read() -> SecureBytes? {
        guard let fds = Self.socketPair() else { return nil }
        let pid = spawn(stdin: -1, stdout: fds[1])
        close(fds[1])
        defer { close(fds[0]) }
        guard let pid else { return nil }
        let deadline = Date().addingTimeInterval(Self.timeoutSeconds)
        let buffer = SecureBytes(byteCount: Self.maximumOutputByteCount + 1)
        var count = 0
        var complete = false
        buffer.withUnsafeMutableBytes { raw in
            while count < raw.count, wait(fds[0], events: Int16(POLLIN), until: deadline) {
                let n = Glibc.read(fds[0], raw.baseAddress! + count, raw.count - count)
                if n < 0 && errno == EINTR { continue }
                if n == 0 { complete = true }
                guard n > 0 else { return }
                count += n
            }
        }
        guard reap(pid, until: deadline), complete else { return nil }
        return buffer.copy(range: 0..<count)
    }

    /// A connected pair of close-on-exec stream sockets: one end for the helper, one for us.
    static func socketPair() -> [Int32]? {
        var pair: [Int32] = [-1, -1]
        return socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0 ? pair : nil
    }

    private func spawn(stdin: Int32, stdout: Int32) -> pid_t? {
        var argv: [UnsafeMutablePointer<CChar>?] = command.map { strdup($0) } + [nil]
        var envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid: pid_t = 0
        return keyshelf_spawn_detached(command[0], &argv, &envp, stdin, stdout, &pid) == 0 ? pid : nil
    }

    /// Polls `fd` for `events` until `deadline`; false on timeout or error.
    private func wait(_ fd: Int32, events: Int16, until deadline: Date) -> Bool {
        while true {
            let left = deadline.timeIntervalSinceNow
            guard left > 0 else { return false }
            var entry = pollfd(fd: fd, events: events, revents: 0)
            let rc = poll(&entry, 1, Int32(left * 1000) + 1)
            if rc < 0 && errno == EINTR { continue }
            return rc > 0
        }
    }

    /// Waits for `pid` until `deadline`, then kills it; true when it exited 0 in time.
    private func reap(_ pid: pid_t, until deadline: Date) -> Bool {
        var status: Int32 = 0
        while Date() < deadline {
            let rc = waitpid(pid, &status, WNOHANG)
            if rc == pid { return status == 0 }
            if rc < 0 && errno != EINTR { return false }
            usleep(2_000)
        }
        kill(pid, SIGKILL)
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return false
    }
}
