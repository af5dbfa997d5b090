import Foundation
import Glibc
import KeyshelfCrypto

/// The agent process: holds one vault's password keys in sodium memory,
/// hands them to same-uid clients over its Unix socket, and answers the
/// credentials operations (`ShelfOperation`: `get`, `list`, `search`, `add`,
/// `rm`) from the vault it keeps open, until a limit runs out, it is told to lock, or it receives
/// SIGTERM, SIGHUP or SIGINT. It then wipes the keys and the open vault,
/// removes its socket and exits: a locked agent is no process at all
/// (docs/agent-protocol.md, "Lifetime").
///
/// Started by `AgentClient.unlock` as `keyshelf __agent DIR VAULT`. One
/// request per connection. Each connection is read and answered on its own
/// thread, with a deadline for the whole request, so an idle or stopped
/// client holds off nobody; the requests themselves run one at a time
/// (`AgentCore`).
public enum AgentServer {
    /// The hidden subcommand that runs the agent.
    public static let commandName = "__agent"
    /// Seconds a new agent waits for its first `unlock` before it exits.
    static let firstUnlockSeconds = 30.0
    /// Seconds one connection may take to send its whole request.
    static let requestTimeoutSeconds = 1.0
    /// Seconds one connection may take to read its whole reply.
    static let replyTimeoutSeconds = 2.0
    /// Connections served at once; more wait in the listen backlog until one ends.
    static let maximumConnections = 64
    /// Longest poll, in milliseconds, so the limits are re-checked after a suspend.
    static let maximumPollMilliseconds: Int32 = 60_000

    /// The write end of the self-pipe the signal handlers write to.
    nonisolated(unsafe) private static var signalWriteFD: Int32 = -1

    /// Runs the agent for `arguments` (`DIR VAULT`: socket directory and
    /// resolved vault path) until it locks.
    /// - Returns: the exit code: 0 after locking (or when another agent
    ///   already serves the vault), 1 when it could not listen, 2 for bad arguments.
    public static func run(arguments: [String]) -> Int32 {
        guard arguments.count == 2 else { return 2 }
        let location = AgentLocation(directory: arguments[0], vaultPath: arguments[1])
        do {
            try serve(location)
            return 0
        } catch {
            return 1
        }
    }

    private static func serve(_ location: AgentLocation) throws {
        ProcessHardening.disableCoreDumps()
        ProcessHardening.ignoreFileSizeSignal()
        ProcessHardening.returnLargeFreesToTheKernel()
        try location.checkDirectory(create: true)
        // Held for the agent's whole life: a second agent for the same vault
        // gives up here, and a killed agent's lock vanishes with it.
        let lockFD = open(location.lockPath, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard lockFD >= 0 else { throw AgentSocket.ioError("open \(location.lockPath)") }
        defer { close(lockFD) }
        guard flock(lockFD, LOCK_EX | LOCK_NB) == 0 else { return }
        let listenFD = try AgentSocket.listen(location.socketPath)
        defer {
            unlink(location.socketPath)
            close(listenFD)
        }
        let signalReadFD = try installSignalHandlers()
        let wakeup = try AgentWakeup()
        let core = AgentCore(location: location, now: Clock.now(), wakeup: wakeup)
        defer {
            // Waits for the operation under way (a write finishes and is saved), then wipes.
            core.finish()
            // No new client reaches this agent (the flock still keeps a new one
            // from binding); those still being served get their reply, `lock`'s included.
            unlink(location.socketPath)
            core.awaitConnections(seconds: requestTimeoutSeconds + replyTimeoutSeconds)
        }
        while let wait = core.secondsUntilDeadline(at: Clock.now()) {
            let accepting = core.connectionCount < maximumConnections
            var fds = [pollfd(fd: signalReadFD, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: wakeup.readFD, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: accepting ? listenFD : -1, events: Int16(POLLIN), revents: 0)]
            let ready = poll(&fds, 3, Int32(max(min(wait * 1000 + 1, Double(maximumPollMilliseconds)), 0)))
            if ready < 0 && errno != EINTR { throw AgentSocket.ioError("wait for clients") }
            if fds[0].revents != 0 { return }
            if fds[1].revents != 0 { wakeup.drain() }
            if fds[2].revents & Int16(POLLIN) != 0 {
                let fd = accept(listenFD, nil, nil)
                if fd >= 0 {
                    core.connectionStarted()
                    Thread.detachNewThread { serveConnection(fd, core: core) }
                }
            }
        }
    }

    /// SIGTERM, SIGHUP and SIGINT write a byte to a pipe the main loop polls; SIGPIPE is ignored.
    private static func installSignalHandlers() throws -> Int32 {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw AgentSocket.ioError("create a pipe") }
        _ = fcntl(ends[1], F_SETFL, O_NONBLOCK)
        signalWriteFD = ends[1]
        signal(SIGPIPE, SIG_IGN)
        for sig in [SIGTERM, SIGHUP, SIGINT] {
            signal(sig) { _ in
                var byte: UInt8 = 1
                _ = write(AgentServer.signalWriteFD, &byte, 1)
            }
        }
        return ends[0]
    }

    /// Reads one request from `fd`, answers it and closes `fd`; runs on the
    /// connection's own thread. A peer of another uid is dropped without a
    /// reply, and so is one that does not send its whole request within
    /// `requestTimeoutSeconds` or sends more than the protocol allows.
    private static func serveConnection(_ fd: Int32, core: AgentCore) {
        defer {
            close(fd)
            core.connectionEnded()
        }
        guard let uid = try? AgentSocket.peer(fd).uid, uid == getuid() else { return }
        guard let body = try? AgentSocket.receive(fd, maximumByteCount: AgentProtocol.maximumRequestByteCount,
                                                  deadline: Clock.now() + requestTimeoutSeconds) else { return }
        let response = core.respond(to: body)
        try? AgentSocket.send(fd, response.reply, deadline: Clock.now() + replyTimeoutSeconds)
        // A write leaves its backup rotation for after the reply (AgentService.afterReply).
        if response.wrote { core.afterReply() }
    }
}

/// A self-pipe that wakes the agent's main loop when a connection thread
/// changed its limits (`unlock`, `lock`) or freed a connection slot.
final class AgentWakeup: Sendable {
    let readFD: Int32
    private let writeFD: Int32

    init() throws {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw AgentSocket.ioError("create a pipe") }
        for end in ends { _ = fcntl(end, F_SETFL, O_NONBLOCK) }
        readFD = ends[0]
        writeFD = ends[1]
    }

    func wake() {
        var byte: UInt8 = 1
        _ = write(writeFD, &byte, 1)
    }

    func drain() {
        var bytes = [UInt8](repeating: 0, count: 64)
        while read(readFD, &bytes, bytes.count) > 0 {}
    }
}
