import CSystem
import Glibc

/// One request and one reply on the agent's socket, with the full program's
/// checks and limits (docs/agent-protocol.md, "Who may talk to it", "When the
/// agent fails"): `connect` waits at most 0.5 s; the agent must run under
/// this uid (`SO_PEERCRED`, checked before a byte is sent) and not be
/// stopped; the whole exchange has 15 s, and a stopped agent ends the wait at
/// once. Any trouble throws `HandBack.agentTrouble`: the full program then
/// talks to the agent itself and says what is wrong.
enum AgentExchange {
    /// Largest reply body accepted, in bytes (as the full program: 64 MiB).
    static let maximumReplyByteCount = 64 << 20
    static let connectTimeoutSeconds = 0.5
    static let operationTimeoutSeconds = 15.0
    /// Seconds between two looks at a silent agent's process state.
    static let peerCheckSeconds = 0.1

    /// Sends `frame` (a request frame, its byte count first) and hands the
    /// reply body to `use`. The reply sits in memory locked out of swap (a
    /// password may be in it) and is wiped when `use` returns; when it cannot
    /// be locked the full program runs instead, so that its warning about
    /// unlockable memory is printed.
    /// - Throws: `HandBack`, from here or from `use`.
    static func withReply(to frame: UnsafeRawBufferPointer, at address: AgentAddress, _ use: (UnsafeRawBufferPointer) throws(HandBack) -> Void) throws(HandBack) {
        let fd = try connect(address.socketPath)
        defer { close(fd) }
        var uid: uid_t = 0
        var pid: pid_t = 0
        guard keyshelf_peer_credentials(fd, &uid, &pid) == 0, uid == getuid(), keyshelf_process_is_stopped(pid) == 0 else { throw .agentTrouble }
        let deadline = now() + operationTimeoutSeconds
        try send(fd, frame)
        var prefix: UInt32 = 0
        try withUnsafeMutableBytes(of: &prefix) { bytes throws(HandBack) in try receive(fd, bytes, deadline: deadline, peer: pid) }
        let count = Int(UInt32(littleEndian: prefix))
        guard count > 0, count <= maximumReplyByteCount else { throw .agentTrouble }
        let reply = try LockedBytes(count: count)
        try receive(fd, reply.buffer, deadline: deadline, peer: pid)
        try use(UnsafeRawBufferPointer(reply.buffer))
    }

    private static func connect(_ path: String) throws(HandBack) -> Int32 {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw .agentTrouble }
        // Linux applies SO_SNDTIMEO to a Unix-socket connect: a full backlog cannot hang us.
        var limit = timeval(tv_sec: 0, tv_usec: Int(connectTimeoutSeconds * 1_000_000))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        var rc: Int32
        repeat {
            rc = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
            }
        } while rc != 0 && errno == EINTR
        guard rc == 0 else {
            close(fd)
            throw .agentTrouble
        }
        return fd
    }

    /// Writes all of `bytes` (a request is at most a few kilobytes: the socket buffer takes it at once).
    private static func send(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) throws(HandBack) {
        var done = 0
        while done < bytes.count {
            let n = Glibc.send(fd, bytes.baseAddress! + done, bytes.count - done, Int32(MSG_NOSIGNAL))
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw .agentTrouble }
            done += n
        }
    }

    /// Fills `buffer`, waiting in slices of `peerCheckSeconds` and giving up
    /// when `peer` is stopped, the deadline passes or the stream ends early.
    private static func receive(_ fd: Int32, _ buffer: UnsafeMutableRawBufferPointer, deadline: Double, peer: pid_t) throws(HandBack) {
        var done = 0
        while done < buffer.count {
            var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let left = deadline - now()
            guard left > 0 else { throw .agentTrouble }
            let ready = poll(&entry, 1, Int32((min(peerCheckSeconds, left) * 1000).rounded(.up)))
            if ready < 0 && errno != EINTR { throw .agentTrouble }
            if ready <= 0 {
                if keyshelf_process_is_stopped(peer) != 0 { throw .agentTrouble }
                continue
            }
            let n = recv(fd, buffer.baseAddress! + done, buffer.count - done, Int32(MSG_DONTWAIT))
            if n < 0 && (errno == EINTR || errno == EAGAIN) { continue }
            guard n > 0 else { throw .agentTrouble }
            done += n
        }
    }

    /// Seconds of `CLOCK_MONOTONIC`.
    private static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}
