import CSystem
import Glibc

/// A program run to its end with its standard output and error collected:
/// `posix_spawn` and a blocking `waitpid`. Foundation's `Process` waits for
/// the exit by polling in 50 ms steps on Linux, which a sync of some fifteen
/// git commands paid each time (docs/benchmarks.md, "Session 13").
///
/// Standard input is the given bytes on a socket (`send` with `MSG_NOSIGNAL`:
/// a child that exits without reading them raises no SIGPIPE here) or
/// /dev/null. Standard output and error are pipes drained together in one
/// `poll` loop while the input is written, so no side waits on a full buffer.
/// The child starts in the given directory with the given environment only,
/// no descriptor but those three, and clean signals (`keyshelf_spawn_child`).
struct ChildProcess {
    /// What one run gave back.
    struct Output: Sendable {
        /// The exit status; 128 + N when signal N ended the child (as shells report it).
        var status: Int32
        var standardOutput: [UInt8]
        var standardError: [UInt8]
    }

    /// A system call that failed while starting or serving the child.
    struct Failure: Error, CustomStringConvertible {
        /// The call, e.g. `posix_spawn`.
        var call: String
        /// Its errno value.
        var code: Int32
        var description: String { "\(call): \(String(cString: strerror(code)))" }
    }

    /// Bytes read from a pipe at a time: one default pipe buffer.
    static let readByteCount = 65_536

    /// Runs `executable` with `arguments` and waits until it exits.
    /// - Parameters:
    ///   - executable: the program's absolute path (also its argv[0]).
    ///   - arguments: argv[1...].
    ///   - environment: its whole environment.
    ///   - directory: its working directory.
    ///   - input: bytes for standard input, then end of file; nil: /dev/null.
    /// - Returns: the exit status and everything written to standard output and error.
    /// - Throws: `Failure` when the child cannot be started (no descriptors
    ///   left, `executable` or `directory` missing or not permitted), or when
    ///   its output cannot be read; the child is then killed and reaped.
    static func run(_ executable: String, _ arguments: [String], environment: [String: String], directory: String,
                    input: [UInt8]?) throws(Failure) -> Output {
        var descriptors = Descriptors()
        defer { descriptors.closeAll() }
        let output = try descriptors.pipe()
        let error = try descriptors.pipe()
        let inputPair = input == nil ? nil : try descriptors.socketPair()

        var argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        var envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid: pid_t = 0
        let rc = keyshelf_spawn_child(executable, &argv, &envp, directory, inputPair.map { descriptors[$0.child] } ?? -1,
                                      descriptors[output.child], descriptors[error.child], &pid)
        guard rc == 0 else { throw Failure(call: "posix_spawn", code: rc) }
        // Only the child holds its ends now, so its exit ends our reads.
        descriptors.close(output.child)
        descriptors.close(error.child)
        if let inputPair { descriptors.close(inputPair.child) }

        var collected = Output(status: 0, standardOutput: [], standardError: [])
        var failure: Failure?
        do {
            let writing = inputPair.flatMap { pair in input.map { (slot: pair.parent, bytes: $0) } }
            try serve(&descriptors, output: output.parent, error: error.parent, input: writing, into: &collected)
        } catch let caught {
            failure = caught
            kill(pid, SIGKILL)
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            guard errno == EINTR else { throw Failure(call: "waitpid", code: errno) }
        }
        if let failure { throw failure }
        // The wait status holds the terminating signal in its low 7 bits, else the exit status above them.
        collected.status = status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        return collected
    }

    /// Writes `input` and reads both outputs until the child closes them.
    private static func serve(_ descriptors: inout Descriptors, output: Int, error: Int, input: (slot: Int, bytes: [UInt8])?,
                              into collected: inout Output) throws(Failure) {
        var written = 0
        if let input, input.bytes.isEmpty { descriptors.close(input.slot) }
        var buffer = [UInt8](repeating: 0, count: readByteCount)
        while true {
            var entries: [pollfd] = []
            for slot in [output, error] where descriptors[slot] >= 0 {
                entries.append(pollfd(fd: descriptors[slot], events: Int16(POLLIN), revents: 0))
            }
            if let input, descriptors[input.slot] >= 0 {
                entries.append(pollfd(fd: descriptors[input.slot], events: Int16(POLLOUT), revents: 0))
            }
            if entries.isEmpty { return }
            if poll(&entries, nfds_t(entries.count), -1) < 0 {
                if errno == EINTR { continue }
                throw Failure(call: "poll", code: errno)
            }
            for entry in entries where entry.revents != 0 {
                if let input, entry.fd == descriptors[input.slot] {
                    let sent = input.bytes.withUnsafeBytes { raw in
                        send(entry.fd, raw.baseAddress! + written, raw.count - written, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
                    }
                    if sent >= 0 {
                        written += sent
                        if written == input.bytes.count { descriptors.close(input.slot) }
                    } else if errno != EINTR && errno != EAGAIN {
                        // The child stopped reading (EPIPE); its exit status says what that meant.
                        descriptors.close(input.slot)
                    }
                    continue
                }
                let slot = entry.fd == descriptors[output] ? output : error
                let count = buffer.withUnsafeMutableBytes { read(entry.fd, $0.baseAddress!, $0.count) }
                if count > 0 {
                    if slot == output {
                        collected.standardOutput.append(contentsOf: buffer[..<count])
                    } else {
                        collected.standardError.append(contentsOf: buffer[..<count])
                    }
                } else if count == 0 {
                    descriptors.close(slot)
                } else if errno != EINTR && errno != EAGAIN {
                    throw Failure(call: "read", code: errno)
                }
            }
        }
    }
}

/// The descriptors of one run, by slot; each closed once (a closed slot reads -1).
private struct Descriptors {
    private var fds: [Int32] = []

    subscript(slot: Int) -> Int32 { fds[slot] }

    /// A close-on-exec pipe: `child` is its write end, `parent` its read end.
    mutating func pipe() throws(ChildProcess.Failure) -> (parent: Int, child: Int) {
        var ends: [Int32] = [-1, -1]
        guard keyshelf_pipe(&ends) == 0 else { throw ChildProcess.Failure(call: "pipe2", code: errno) }
        return try keep(ends)
    }

    /// A connected pair of close-on-exec stream sockets: one end for the child's standard input, one for us.
    mutating func socketPair() throws(ChildProcess.Failure) -> (parent: Int, child: Int) {
        var ends: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &ends) == 0 else {
            throw ChildProcess.Failure(call: "socketpair", code: errno)
        }
        return try keep(ends)
    }

    /// Takes both ends into slots (the first end is the parent's), each moved
    /// to 3 or above: in a process started without standard streams one
    /// could be 0–2, and the child's `dup2`s onto 0, 1 and 2 would then
    /// overwrite one another's sources.
    private mutating func keep(_ ends: [Int32]) throws(ChildProcess.Failure) -> (parent: Int, child: Int) {
        let first = fds.count
        fds += ends
        for slot in first..<fds.count where fds[slot] < 3 {
            let moved = fcntl(fds[slot], F_DUPFD_CLOEXEC, 3)
            guard moved >= 0 else { throw ChildProcess.Failure(call: "fcntl", code: errno) }
            Glibc.close(fds[slot])
            fds[slot] = moved
        }
        return (first, first + 1)
    }

    mutating func close(_ slot: Int) {
        guard fds[slot] >= 0 else { return }
        Glibc.close(fds[slot])
        fds[slot] = -1
    }

    mutating func closeAll() {
        for slot in fds.indices { close(slot) }
    }
}
