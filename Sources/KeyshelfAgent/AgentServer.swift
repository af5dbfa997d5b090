import Glibc
import KeyshelfCredentials
import KeyshelfCrypto
import KeyshelfVault

/// The agent process: holds one vault's password keys in sodium memory,
/// hands them to same-uid clients over its Unix socket, and answers the
/// credentials operations `get`, `list`, `search` and `add` from the vault it
/// keeps open, until a limit runs out, it is told to lock, or it receives
/// SIGTERM, SIGHUP or SIGINT. It then wipes the keys and the open vault,
/// removes its socket and exits: a locked agent is no process at all
/// (docs/agent-protocol.md, "Lifetime").
///
/// Started by `AgentClient.unlock` as `keyshelf __agent DIR VAULT`. One
/// request per connection, served one at a time.
public enum AgentServer {
    /// The hidden subcommand that runs the agent.
    public static let commandName = "__agent"
    /// Seconds a new agent waits for its first `unlock` before it exits.
    static let firstUnlockSeconds = 30.0
    /// Seconds one connection may take to send its whole request.
    static let requestTimeoutSeconds = 1.0
    /// Seconds one connection may take to read its whole reply.
    static let replyTimeoutSeconds = 2.0
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
        var state = AgentState(now: Clock.now())
        let service = AgentService(vaultPath: location.vaultPath)
        defer {
            service.close()
            state.wipe()
        }
        while !state.isFinished(at: Clock.now()) {
            let wait = min(state.secondsUntilDeadline(at: Clock.now()) * 1000 + 1, Double(maximumPollMilliseconds))
            var fds = [pollfd(fd: listenFD, events: Int16(POLLIN), revents: 0), pollfd(fd: signalReadFD, events: Int16(POLLIN), revents: 0)]
            let ready = poll(&fds, 2, Int32(max(wait, 0)))
            if ready < 0 && errno != EINTR { throw AgentSocket.ioError("wait for clients") }
            if fds[1].revents != 0 { return }
            if fds[0].revents & Int16(POLLIN) != 0 {
                let fd = accept(listenFD, nil, nil)
                if fd >= 0 {
                    serveConnection(fd, location: location, state: &state, service: service)
                    close(fd)
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

    /// Reads one request from `fd` and answers it. A peer of another uid is
    /// dropped without a reply.
    private static func serveConnection(_ fd: Int32, location: AgentLocation, state: inout AgentState, service: AgentService) {
        guard let uid = try? AgentSocket.peer(fd).uid, uid == getuid() else { return }
        // Whole-frame deadlines: one connection is served at a time, so a peer
        // that trickles bytes must not hold off others, `lock` or a signal.
        guard let body = try? AgentSocket.receive(fd, maximumByteCount: AgentProtocol.maximumRequestByteCount,
                                                  deadline: Clock.now() + requestTimeoutSeconds) else { return }
        let now = Clock.now()
        // A limit that ran out while the request arrived: nothing more is answered.
        guard !state.isFinished(at: now) else { return }
        var reply = FrameWriter()
        reply.integer(AgentProtocol.version)
        // A write leaves its backup rotation for after the reply (AgentService.afterReply).
        var wrote = false
        do {
            var request = FrameReader(body)
            guard try request.integer(UInt8.self) == AgentProtocol.version else {
                reply.integer(AgentProtocol.Reply.unsupportedVersion.rawValue)
                try? AgentSocket.send(fd, reply, deadline: Clock.now() + replyTimeoutSeconds)
                return
            }
            switch AgentProtocol.Operation(rawValue: try request.integer(UInt8.self)) {
            case .status:
                reply.integer((state.unlocked ? AgentProtocol.Reply.ok : .locked).rawValue)
                writeStatus(&reply, state: state, location: location, now: now)
            case .unlock:
                guard try request.string() == location.vaultPath else { throw AgentProtocol.MalformedFrame(reason: "another vault") }
                let timeouts = AgentTimeouts(idleSeconds: try request.integer(UInt32.self), maximumSeconds: try request.integer(UInt32.self))
                let keys = try request.keys()
                guard !keys.isEmpty, request.isAtEnd, timeouts.idleSeconds > 0, timeouts.maximumSeconds > 0,
                      timeouts.idleSeconds <= AgentTimeouts.ceilingSeconds, timeouts.maximumSeconds <= AgentTimeouts.ceilingSeconds else {
                    throw AgentProtocol.MalformedFrame(reason: "bad unlock request")
                }
                service.close()
                state.unlock(keys, timeouts: timeouts, now: now)
                reply.integer(AgentProtocol.Reply.ok.rawValue)
                writeStatus(&reply, state: state, location: location, now: now)
            case .keys:
                if state.unlocked {
                    state.touch(now: now)
                    reply.integer(AgentProtocol.Reply.ok.rawValue)
                    reply.string(location.vaultPath)
                    reply.keys(state.keys)
                } else {
                    reply.integer(AgentProtocol.Reply.locked.rawValue)
                }
            case .lock:
                service.close()
                state.lock()
                reply.integer(AgentProtocol.Reply.ok.rawValue)
            case let code?:
                let (operation, answers) = try request.operation(code)
                guard request.isAtEnd else { throw AgentProtocol.MalformedFrame(reason: "bytes after the request") }
                reply = perform(operation, answers: answers, state: &state, service: service, now: now)
                if case .add = operation { wrote = true }
            case nil:
                throw AgentProtocol.MalformedFrame(reason: "unknown operation")
            }
        } catch {
            reply = FrameWriter()
            reply.integer(AgentProtocol.version)
            reply.integer(AgentProtocol.Reply.badRequest.rawValue)
        }
        try? AgentSocket.send(fd, reply, deadline: Clock.now() + replyTimeoutSeconds)
        if wrote { service.afterReply() }
    }

    /// The reply to a credentials operation (docs/agent-protocol.md, "Operations").
    private static func perform(_ operation: AgentOperation, answers: ConsentAnswers, state: inout AgentState,
                                service: AgentService, now: Double) -> FrameWriter {
        var reply = FrameWriter()
        reply.integer(AgentProtocol.version)
        guard state.unlocked else {
            reply.integer(AgentProtocol.Reply.locked.rawValue)
            return reply
        }
        state.touch(now: now)
        switch service.perform(operation, answers: answers, keys: state.keys) {
        case .done(let result):
            reply.integer(AgentProtocol.Reply.ok.rawValue)
            reply.result(result)
            if reply.byteCount > AgentProtocol.maximumReplyByteCount {
                reply = FrameWriter()
                reply.integer(AgentProtocol.version)
                reply.integer(AgentProtocol.Reply.useVault.rawValue)
                reply.string("the reply is larger than \(AgentProtocol.maximumReplyByteCount) bytes")
            }
        case .consentNeeded(let request):
            reply.integer(AgentProtocol.Reply.consentNeeded.rawValue)
            reply.consentRequest(request)
        case .failed(let error):
            reply.integer(AgentProtocol.Reply.failed.rawValue)
            reply.integer(error.status.rawValue)
            reply.string(error.reason)
        case .useVault(let reason):
            reply.integer(AgentProtocol.Reply.useVault.rawValue)
            reply.string(reason)
        case .keysRejected:
            // The master password changed behind this agent: its keys are useless.
            service.close()
            state.lock()
            reply.integer(AgentProtocol.Reply.locked.rawValue)
        }
        return reply
    }

    private static func writeStatus(_ reply: inout FrameWriter, state: AgentState, location: AgentLocation, now: Double) {
        reply.integer(Int32(getpid()))
        reply.integer(state.unlocked ? UInt64(max(0, state.idleDeadline - now).rounded(.up)) : 0)
        reply.integer(state.unlocked ? UInt64(max(0, state.absoluteDeadline - now).rounded(.up)) : 0)
        reply.integer(UInt8(state.unlocked ? 1 : 0))
        reply.string(location.vaultPath)
    }
}

/// The agent's keys and limits. Times are `Clock.now()` seconds.
struct AgentState {
    private(set) var keys: [VaultPasswordKey] = []
    private var idleSeconds = 0.0
    private(set) var idleDeadline: Double
    private(set) var absoluteDeadline: Double
    /// Set by `lock()` and by a limit running out: the agent then exits.
    private var locked = false

    /// A fresh agent, waiting `AgentServer.firstUnlockSeconds` for its keys.
    init(now: Double) {
        idleDeadline = now + AgentServer.firstUnlockSeconds
        absoluteDeadline = idleDeadline
    }

    var unlocked: Bool { !keys.isEmpty }

    mutating func unlock(_ newKeys: [VaultPasswordKey], timeouts: AgentTimeouts, now: Double) {
        wipe()
        keys = newKeys
        idleSeconds = Double(timeouts.idleSeconds)
        idleDeadline = now + idleSeconds
        absoluteDeadline = now + Double(timeouts.maximumSeconds)
    }

    /// A use: the idle limit starts again.
    mutating func touch(now: Double) {
        idleDeadline = now + idleSeconds
    }

    mutating func lock() {
        wipe()
        locked = true
    }

    /// Zeroes every key (`sodium_memzero`) and forgets them.
    mutating func wipe() {
        for key in keys { key.key.wipe() }
        keys = []
    }

    /// Seconds until the next limit.
    func secondsUntilDeadline(at now: Double) -> Double {
        min(idleDeadline, absoluteDeadline) - now
    }

    func isFinished(at now: Double) -> Bool {
        locked || secondsUntilDeadline(at: now) <= 0
    }
}

/// Seconds since boot, counting time suspended (`CLOCK_BOOTTIME`), so a
/// laptop that slept past a limit is locked when it wakes.
enum Clock {
    static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_BOOTTIME, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}
