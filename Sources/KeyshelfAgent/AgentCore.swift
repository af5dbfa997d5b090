import Foundation
import Glibc
import KeyshelfCredentials
import KeyshelfCrypto
import KeyshelfVault

/// The agent's keys, limits and open vault, shared by the threads that
/// serve its connections (one per connection, `AgentServer`).
///
/// Two locks, always taken in this order: `operationLock` lets one request
/// at a time touch the open vault (the credentials operations, `unlock` and
/// `lock`, which close it, the backup rotation after a write, and the final
/// wipe); `stateLock` guards the keys and limits for the short looks the
/// main loop, `status` and `keys` take, so those never wait for a vault
/// operation. Reading a request and sending its reply hold neither lock.
final class AgentCore: @unchecked Sendable {
    /// A reply, and whether the request wrote to the vault (then
    /// `afterReply` runs once the reply is sent).
    struct Response {
        var reply: FrameWriter
        var wrote: Bool
    }

    private let location: AgentLocation
    private let wakeup: AgentWakeup
    private let operationLock = NSLock()
    private let stateLock = NSLock()
    private var state: AgentState
    private let service: AgentService
    private let countLock = NSLock()
    private var connections = 0

    init(location: AgentLocation, now: Double, wakeup: AgentWakeup) {
        self.location = location
        self.wakeup = wakeup
        state = AgentState(now: now)
        service = AgentService(vaultPath: location.vaultPath)
    }

    // MARK: Main loop

    /// Seconds until the next limit, or nil when the agent must exit
    /// (locked, or a limit ran out).
    func secondsUntilDeadline(at now: Double) -> Double? {
        stateLock.withLock { state.isFinished(at: now) ? nil : state.secondsUntilDeadline(at: now) }
    }

    /// Connections being served now.
    var connectionCount: Int { countLock.withLock { connections } }

    func connectionStarted() {
        countLock.withLock { connections += 1 }
    }

    /// A connection ended; wakes the main loop when it had stopped accepting.
    func connectionEnded() {
        let wasFull = countLock.withLock {
            connections -= 1
            return connections + 1 >= AgentServer.maximumConnections
        }
        if wasFull { wakeup.wake() }
    }

    /// Waits up to `seconds` until no connection is being served.
    func awaitConnections(seconds: Double) {
        let deadline = Clock.now() + seconds
        while connectionCount > 0 && Clock.now() < deadline { usleep(5_000) }
    }

    /// Waits for the operation under way (a write completes and is saved),
    /// then wipes the keys and closes the vault. Requests still arriving are
    /// answered `locked`.
    func finish() {
        operationLock.withLock {
            service.close()
            stateLock.withLock { state.lock() }
        }
    }

    // MARK: Requests

    /// The reply to one request body (docs/agent-protocol.md, "Requests").
    /// A request that arrives after a limit ran out is answered as by a
    /// locked agent: no keys, no operation.
    func respond(to body: SecureBytes) -> Response {
        var reply = Self.replyHeader()
        var wrote = false
        do {
            var request = FrameReader(body)
            guard try request.integer(UInt8.self) == AgentProtocol.version else {
                reply.integer(AgentProtocol.Reply.unsupportedVersion.rawValue)
                return Response(reply: reply, wrote: false)
            }
            switch AgentProtocol.Operation(rawValue: try request.integer(UInt8.self)) {
            case .status:
                stateLock.withLock {
                    let now = Clock.now()
                    let unlocked = state.unlocked && !state.isFinished(at: now)
                    reply.integer((unlocked ? AgentProtocol.Reply.ok : .locked).rawValue)
                    writeStatus(&reply, unlocked: unlocked, now: now)
                }
            case .unlock:
                guard try request.string() == location.vaultPath else { throw AgentProtocol.MalformedFrame(reason: "another vault") }
                let timeouts = AgentTimeouts(idleSeconds: try request.integer(UInt32.self), maximumSeconds: try request.integer(UInt32.self))
                let keys = try request.keys()
                guard !keys.isEmpty, request.isAtEnd, timeouts.idleSeconds > 0, timeouts.maximumSeconds > 0,
                      timeouts.idleSeconds <= AgentTimeouts.ceilingSeconds, timeouts.maximumSeconds <= AgentTimeouts.ceilingSeconds else {
                    throw AgentProtocol.MalformedFrame(reason: "bad unlock request")
                }
                operationLock.withLock {
                    service.close()
                    stateLock.withLock {
                        let now = Clock.now()
                        guard !state.isFinished(at: now) else {
                            for key in keys { key.key.wipe() }
                            reply.integer(AgentProtocol.Reply.locked.rawValue)
                            return
                        }
                        state.unlock(keys, timeouts: timeouts, now: now)
                        reply.integer(AgentProtocol.Reply.ok.rawValue)
                        writeStatus(&reply, unlocked: true, now: now)
                    }
                }
                wakeup.wake()
            case .keys:
                stateLock.withLock {
                    let now = Clock.now()
                    guard state.unlocked, !state.isFinished(at: now) else {
                        reply.integer(AgentProtocol.Reply.locked.rawValue)
                        return
                    }
                    state.touch(now: now)
                    reply.integer(AgentProtocol.Reply.ok.rawValue)
                    reply.string(location.vaultPath)
                    reply.keys(state.keys)
                }
            case .lock:
                finish()
                wakeup.wake()
                reply.integer(AgentProtocol.Reply.ok.rawValue)
            case let code?:
                let (operation, answers) = try request.operation(code)
                guard request.isAtEnd else { throw AgentProtocol.MalformedFrame(reason: "bytes after the request") }
                reply = perform(operation, answers: answers)
                wrote = operation.writes
            case nil:
                throw AgentProtocol.MalformedFrame(reason: "unknown operation")
            }
        } catch {
            reply = Self.replyHeader()
            reply.integer(AgentProtocol.Reply.badRequest.rawValue)
        }
        return Response(reply: reply, wrote: wrote)
    }

    /// The work a write leaves for after the reply (`AgentService.afterReply`).
    func afterReply() {
        operationLock.withLock { service.afterReply() }
    }

    /// The reply to a credentials operation (docs/agent-protocol.md, "Operations").
    private func perform(_ operation: ShelfOperation, answers: ConsentAnswers) -> FrameWriter {
        operationLock.withLock {
            var reply = Self.replyHeader()
            let keys: [VaultPasswordKey]? = stateLock.withLock {
                let now = Clock.now()
                guard state.unlocked, !state.isFinished(at: now) else { return nil }
                state.touch(now: now)
                return state.keys
            }
            guard let keys else {
                reply.integer(AgentProtocol.Reply.locked.rawValue)
                return reply
            }
            switch service.perform(operation, answers: answers, keys: keys) {
            case .done(let result):
                if case .masterPasswordChanged = result { adoptSessionKeys() }
                reply.integer(AgentProtocol.Reply.ok.rawValue)
                reply.result(result)
                if reply.byteCount > AgentProtocol.maximumReplyByteCount {
                    reply = Self.replyHeader()
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
            case .vaultFailed(let error):
                reply.integer(AgentProtocol.Reply.vaultFailed.rawValue)
                reply.vaultError(error)
            case .keysRejected:
                // The master password changed behind this agent: its keys are useless.
                service.close()
                stateLock.withLock { state.lock() }
                wakeup.wake()
                reply.integer(AgentProtocol.Reply.locked.rawValue)
            }
            return reply
        }
    }

    /// After `passwd` through the agent: the keys it hands to `keys` requests
    /// become those of the new master password (the open session's), so it
    /// stays unlocked. Without them (cannot happen with a session open) it
    /// locks. The caller holds `operationLock`.
    private func adoptSessionKeys() {
        guard let keys = service.passwordKeys() else {
            service.close()
            stateLock.withLock { state.lock() }
            wakeup.wake()
            return
        }
        stateLock.withLock { state.replaceKeys(keys, now: Clock.now()) }
    }

    private static func replyHeader() -> FrameWriter {
        var reply = FrameWriter()
        reply.integer(AgentProtocol.version)
        return reply
    }

    /// Status fields; the caller holds `stateLock`.
    private func writeStatus(_ reply: inout FrameWriter, unlocked: Bool, now: Double) {
        reply.integer(Int32(getpid()))
        reply.integer(unlocked ? UInt64(max(0, state.idleDeadline - now).rounded(.up)) : 0)
        reply.integer(unlocked ? UInt64(max(0, state.absoluteDeadline - now).rounded(.up)) : 0)
        reply.integer(UInt8(unlocked ? 1 : 0))
        reply.string(location.vaultPath)
    }
}
