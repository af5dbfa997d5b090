import CSystem
import Glibc
import KeyshelfCrypto

/// Unix-domain stream sockets for the agent: connect, listen, the peer-uid
/// check (`SO_PEERCRED`) and frame I/O. Every descriptor is close-on-exec.
enum AgentSocket {
    /// The longest socket path `sockaddr_un` holds, in bytes (without the NUL).
    static let maximumPathByteCount = MemoryLayout.size(ofValue: sockaddr_un().sun_path) - 1

    static func ioError(_ what: String, _ code: Int32 = errno) -> AgentError {
        AgentError(.io, "cannot \(what): \(String(cString: strerror(code)))")
    }

    private static func address(_ path: String) throws -> sockaddr_un {
        let bytes = Array(path.utf8)
        guard bytes.count <= maximumPathByteCount else {
            throw AgentError(.io, "the agent socket path \(path) is longer than \(maximumPathByteCount) bytes; set XDG_RUNTIME_DIR to a shorter directory")
        }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        return address
    }

    /// What `connect` found at a socket path.
    enum Connection {
        /// No socket file (or no directory): no agent was ever started, or it locked.
        case absent
        /// A socket file nobody listens on (`ECONNREFUSED`): its agent was killed or crashed.
        case stale
        /// A connected socket; the caller closes it.
        case connected(Int32)
    }

    /// Connects to `path`, waiting at most `timeoutSeconds` for room in the
    /// listener's backlog (Linux applies `SO_SNDTIMEO` to a Unix-socket
    /// `connect`), so a stopped agent whose backlog is full cannot hang the client.
    /// - Throws: `AgentError.notResponding` when the wait runs out; `.io` for other failures.
    static func connect(_ path: String, timeoutSeconds: Double) throws -> Connection {
        var address = try address(path)
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw ioError("create a socket") }
        setTimeout(fd, seconds: timeoutSeconds)
        var rc: Int32
        repeat {
            rc = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
            }
        } while rc != 0 && errno == EINTR
        guard rc != 0 else { return .connected(fd) }
        let code = errno
        close(fd)
        switch code {
        case ENOENT: return .absent
        case ECONNREFUSED: return .stale
        case EAGAIN, EINPROGRESS:
            throw AgentError(.notResponding, "the agent at \(path) accepted no connection within \(timeoutSeconds) s (stopped or stuck)")
        default: throw ioError("connect to the agent at \(path)", code)
        }
    }

    /// Connections the kernel queues for the agent before `connect` waits.
    static let listenBacklog: Int32 = 128

    /// A listening socket bound to `path` with mode 0600. A file already at
    /// `path` is removed first: the caller holds the agent's lock file, so it
    /// can only be a stale socket.
    static func listen(_ path: String) throws -> Int32 {
        var address = try address(path)
        unlink(path)
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw ioError("create a socket") }
        // The mode is set at bind time from the umask: never wider than 0600.
        let previous = umask(0o177)
        let rc = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        umask(previous)
        guard rc == 0, chmod(path, 0o600) == 0, Glibc.listen(fd, listenBacklog) == 0 else {
            let error = ioError("listen on \(path)")
            close(fd)
            throw error
        }
        return fd
    }

    /// The uid and pid at the other end of `fd` (`SO_PEERCRED`).
    static func peer(_ fd: Int32) throws -> (uid: uid_t, pid: pid_t) {
        var uid: uid_t = 0
        var pid: pid_t = 0
        guard keyshelf_peer_credentials(fd, &uid, &pid) == 0 else { throw ioError("read the peer's credentials") }
        return (uid, pid)
    }

    /// Limits each blocking read and write on `fd` to `seconds`, so a stalled peer cannot hang the other end.
    static func setTimeout(_ fd: Int32, seconds: Double) {
        let whole = max(0, seconds.rounded(.down))
        var time = timeval(tv_sec: Int(whole), tv_usec: Int((seconds - whole) * 1_000_000))
        if time.tv_sec == 0 && time.tv_usec == 0 { time.tv_usec = 1 }   // 0 would mean "no limit"
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &time, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &time, socklen_t(MemoryLayout<timeval>.size))
    }

    /// Sends one frame: `u32` byte count (little-endian), then the body.
    /// - Parameter deadline: `Clock.now()` time by which the whole frame must
    ///   be written (a peer that reads slowly cannot stretch it), or nil for
    ///   the per-write timeout alone.
    static func send(_ fd: Int32, _ frame: FrameWriter, deadline: Double? = nil) throws {
        try frame.withFrame { try writeAll(fd, $0, deadline: deadline) }
    }

    /// Receives one frame body into secure memory; nil when the peer closed
    /// the connection before sending anything.
    /// - Parameter deadline: `Clock.now()` time by which the whole frame must
    ///   have arrived (a peer that trickles bytes cannot stretch it), or nil
    ///   for the per-read timeout alone.
    /// - Parameter peer: a process whose stop (SIGSTOP, a debugger) ends the
    ///   wait at once instead of at the deadline (the client watches its agent).
    /// - Throws: `AgentError.protocolError` for an oversized frame; `.notRunning`
    ///   for a cut-off one or a reset; `.notResponding` when `peer` is stopped
    ///   or the deadline passes; `.io`.
    static func receive(_ fd: Int32, maximumByteCount: Int, deadline: Double? = nil, peer: pid_t? = nil) throws -> SecureBytes? {
        var count: UInt32 = 0
        let got = try withUnsafeMutableBytes(of: &count) { try readAll(fd, $0, deadline: deadline, peer: peer) }
        guard got > 0 else { return nil }
        guard got == 4 else { throw AgentError(.notRunning, "the agent connection closed in the middle of a frame (the other end may have crashed)") }
        let byteCount = Int(UInt32(littleEndian: count))
        guard byteCount <= maximumByteCount else {
            throw AgentError(.protocolError, "agent frame of \(byteCount) bytes is larger than \(maximumByteCount)")
        }
        let body = SecureBytes(byteCount: byteCount)
        let read = try body.withUnsafeMutableBytes { try readAll(fd, $0, deadline: deadline, peer: peer) }
        guard read == byteCount else { throw AgentError(.notRunning, "the agent connection closed in the middle of a frame (the other end may have crashed)") }
        return body
    }

    /// Before each system call, the time left until `deadline` becomes the socket's timeout.
    private static func limit(_ fd: Int32, _ deadline: Double?) throws {
        guard let deadline else { return }
        let left = deadline - Clock.now()
        guard left > 0 else { throw tooSlow }
        setTimeout(fd, seconds: left)
    }

    private static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, deadline: Double?) throws {
        var done = 0
        while done < bytes.count {
            try limit(fd, deadline)
            let n = Glibc.send(fd, bytes.baseAddress! + done, bytes.count - done, Int32(MSG_NOSIGNAL))
            if n < 0 {
                if errno == EINTR { continue }
                if errno == EAGAIN { throw tooSlow }
                throw ioError("write to the agent socket")
            }
            done += n
        }
    }

    /// Reads until `buffer` is full or end of stream; returns the bytes read.
    private static func readAll(_ fd: Int32, _ buffer: UnsafeMutableRawBufferPointer, deadline: Double?, peer: pid_t?) throws -> Int {
        var done = 0
        while done < buffer.count {
            if let peer { try awaitData(fd, deadline: deadline, peer: peer) }
            try limit(fd, deadline)
            let n = recv(fd, buffer.baseAddress! + done, buffer.count - done, 0)
            if n < 0 {
                if errno == EINTR { continue }
                if errno == EAGAIN { throw tooSlow }
                if errno == ECONNRESET { throw AgentError(.notRunning, "the other end of the agent socket reset the connection (it may have crashed)") }
                throw ioError("read from the agent socket")
            }
            if n == 0 { break }
            done += n
        }
        return done
    }

    /// Seconds between two looks at a silent peer's process state.
    static let peerCheckSeconds = 0.1

    /// Waits until `fd` has data (or end of stream), looking every
    /// `peerCheckSeconds` whether process `peer` is stopped.
    private static func awaitData(_ fd: Int32, deadline: Double?, peer: pid_t) throws {
        while true {
            let slice = min(peerCheckSeconds, deadline.map { $0 - Clock.now() } ?? peerCheckSeconds)
            var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&entry, 1, Int32(max(0, slice * 1000).rounded(.up)))
            if ready > 0 { return }
            if ready < 0 && errno != EINTR { throw ioError("wait for the agent") }
            try refuseIfStopped(peer)
            if let deadline, Clock.now() >= deadline { throw tooSlow }
        }
    }

    /// A deadline ran out.
    private static let tooSlow = AgentError(.notResponding, "the other end of the agent socket is too slow; gave up")

    /// - Throws: `AgentError.notResponding` when process `pid` is stopped: its
    ///   agent would not answer before the deadline.
    static func refuseIfStopped(_ pid: pid_t) throws {
        guard keyshelf_process_is_stopped(pid) != 0 else { return }
        throw AgentError(.notResponding, "the agent (pid \(pid)) is stopped (SIGSTOP or a debugger); not waiting for it")
    }
}
