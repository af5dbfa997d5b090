import CSystem
import Foundation
import Glibc
import KeyshelfCredentials
import KeyshelfCrypto
import KeyshelfVault

/// Talks to the agent of one vault directory (docs/agent-protocol.md).
///
/// Every call connects (waiting at most `connectTimeoutSeconds`), checks
/// that the socket directory is safe and that the agent runs under this uid
/// (`SO_PEERCRED`) and is not stopped, sends one request and reads one
/// reply. No agent reads as "locked"; an agent that is gone (a stale socket,
/// a connection closed without a reply) or does not answer is an
/// `AgentError` (`.notRunning`, `.notResponding`), so the caller can say why
/// it takes the password path.
public enum AgentClient {
    /// Seconds a client waits for room in the agent's backlog.
    static let connectTimeoutSeconds = 0.5
    /// Seconds a client waits for the whole exchange (request and reply).
    static let replyTimeoutSeconds = 5.0
    /// Seconds a client waits for the reply to a credentials operation: longer
    /// than the agent's own wait for the vault's lock (`AgentService.lockTimeoutSeconds`).
    static let operationTimeoutSeconds = 15.0
    /// Seconds a client waits for the reply to `passwd`'s operation: two
    /// Argon2id runs at up to the ceiling limits on a busy machine, after
    /// the agent's other requests and its wait for the vault's lock. A
    /// stopped or crashed agent is still noticed at once.
    static let passwordChangeTimeoutSeconds = 300.0
    /// Consent round trips one operation may take (a new question after each
    /// answer means the vault changed meanwhile).
    static let maximumConsentRounds = 4
    /// Seconds `unlock` waits for a newly started agent to listen.
    static let startTimeoutSeconds = 5.0

    // MARK: One-call API (TUI, CLI)

    /// An unlocked session from the agent's keys, or nil when no agent is
    /// unlocked or anything about it is wrong; uses the process environment.
    /// For the TUI: call before showing the unlock screen.
    public static func session(for vault: VaultDirectory) -> VaultSession? {
        try? openSession(for: vault, environment: ProcessInfo.processInfo.environment)
    }

    /// Opens `vault` with the keys of its unlocked agent: no password, no Argon2id.
    /// When the keys no longer fit the vault (the master password was
    /// changed), the agent is locked and nil returned, so the caller takes
    /// the password path.
    /// - Returns: nil when no agent is unlocked for `vault`.
    /// - Throws: `AgentError` (unsafe socket directory, an agent of another
    ///   uid, a broken reply); `VaultError` for a vault that cannot be opened
    ///   for another reason than the keys (damaged, truncated, no vault).
    public static func openSession(for vault: VaultDirectory, environment: [String: String]) throws -> VaultSession? {
        let location = AgentLocation(vault: vault, environment: environment)
        guard let keys = try passwordKeys(location) else { return nil }
        do {
            return try vault.unlock(passwordKeys: keys)
        } catch let error as VaultError where error.code == .wrongPassword {
            _ = try? lock(location)
            return nil
        }
    }

    /// Runs `operation` in the unlocked agent of `vault`, which answers from
    /// the vault it keeps open (docs/agent-protocol.md, "Operations"). Each
    /// consent request the agent meets comes back here and is put to
    /// `consent` (the client's terminal or the unattended policy); the
    /// operation is then sent again with the answers so far.
    /// - Parameter approveAll: the user's `--yes`: every request is approved
    ///   in advance, so the agent needs no round trip to ask.
    /// - Returns: nil when no agent is unlocked for `vault`, or when it hands
    ///   the operation back (an item that re-asks the master password, a
    ///   vault error, an agent too old for the operation): the caller then
    ///   opens the vault itself (`openSession`, else the master password).
    ///   Never after an operation that `isRetriedOnlyBeforeSending` may
    ///   have run (`passwd`): its vault errors are thrown, and a reply that
    ///   does not come is `AgentError.answerLost`.
    /// - Throws: `KeychainError` as the facade's method would (not found,
    ///   declined, …); `VaultError` relayed by a `vaultFailed` reply;
    ///   `AgentError` (unsafe socket directory, an agent of another uid, a
    ///   broken reply, `.answerLost`).
    public static func perform(_ operation: ShelfOperation, for vault: VaultDirectory, environment: [String: String],
                               consent: any Consent, approveAll: Bool) throws -> ShelfResult? {
        let location = AgentLocation(vault: vault, environment: environment)
        let answerLost = operation.isRetriedOnlyBeforeSending ? Self.passwordChangeUnanswered : nil
        var answers = ConsentAnswers(approveAll: approveAll)
        for _ in 0..<maximumConsentRounds {
            var request = FrameWriter()
            request.integer(AgentProtocol.version)
            request.integer(operation.code.rawValue)
            request.operation(operation, answers: answers)
            guard request.byteCount <= AgentProtocol.maximumRequestByteCount,
                  let (reply, reader) = try exchange(location, request, timeoutSeconds: operation.replyTimeoutSeconds,
                                                     answerLost: answerLost)
            else { return nil }
            var r = reader
            do {
                switch reply {
                case .ok:
                    let result = try r.result(of: operation)
                    guard r.isAtEnd else { throw AgentProtocol.MalformedFrame(reason: "bytes after the result") }
                    return result
                case .consentNeeded:
                    let question = try r.consentRequest()
                    answers.given.append((question, consent.ask(question)))
                case .failed:
                    let code = try r.integer(Int32.self)
                    let reason = try r.string()
                    guard let status = KeychainStatus(rawValue: code), status != .success else {
                        throw AgentProtocol.MalformedFrame(reason: "an unknown status \(code)")
                    }
                    throw KeychainError(status, reason)
                case .vaultFailed:
                    throw try r.vaultError()
                case .locked, .useVault, .badRequest, .unsupportedVersion:
                    return nil
                }
            } catch let error as AgentProtocol.MalformedFrame {
                let malformed = AgentError(.protocolError, "malformed agent reply: \(error.reason)")
                throw answerLost?(malformed) ?? malformed
            }
        }
        throw AgentError(.protocolError, "the agent asked for consent \(maximumConsentRounds) times for one operation; the vault keeps changing, try again")
    }

    /// What `passwd` says when the agent got the request but no reply came.
    private static func passwordChangeUnanswered(_ error: AgentError) -> AgentError {
        AgentError(.answerLost, "no answer from the agent to the master password change (\(error.reason)): it may have changed the password. Check with `keyshelf status`, and try the new password (`keyshelf --no-agent list`) before running `keyshelf passwd` again")
    }

    /// Locks the agent of `vault`: it wipes its keys and exits. For the
    /// TUI's `X` and for `keyshelf passwd` when it changed the password
    /// without this agent.
    /// - Returns: whether an agent was running.
    @discardableResult
    public static func lock(for vault: VaultDirectory, environment: [String: String] = ProcessInfo.processInfo.environment) -> Bool {
        (try? lock(AgentLocation(vault: vault, environment: environment))) ?? false
    }

    // MARK: Requests

    /// The agent's status, or nil when none runs for `location` (a stale
    /// socket included: `unlock` then starts a new agent).
    /// - Throws: `AgentError`.
    public static func status(_ location: AgentLocation) throws -> AgentStatus? {
        var request = FrameWriter()
        request.integer(AgentProtocol.version)
        request.integer(AgentProtocol.Operation.status.rawValue)
        let answer: (AgentProtocol.Reply, FrameReader)?
        do {
            answer = try exchange(location, request)
        } catch let error as AgentError where error.code == .notRunning {
            return nil
        }
        guard let (reply, reader) = answer else { return nil }
        guard reply == .ok || reply == .locked else { throw unexpected(reply) }
        var r = reader
        return try readStatus(&r, location)
    }

    /// Hands `keys` to the agent for `location` with `timeouts`, starting the
    /// agent first when none runs (the `keyshelf` binary at `executable`,
    /// re-executed as `keyshelf __agent DIR VAULT` in a new session with its
    /// standard streams on /dev/null).
    /// - Returns: the agent's status after the unlock.
    /// - Throws: `AgentError` `.unsafeDirectory`, `.startFailed`, `.protocolError`, `.io`.
    public static func unlock(_ location: AgentLocation, keys: [VaultPasswordKey], timeouts: AgentTimeouts, executable: String) throws -> AgentStatus {
        try location.checkDirectory(create: true)
        if try status(location) == nil {
            try start(location, executable: executable)
        }
        var request = FrameWriter()
        request.integer(AgentProtocol.version)
        request.integer(AgentProtocol.Operation.unlock.rawValue)
        request.string(location.vaultPath)
        request.integer(timeouts.idleSeconds)
        request.integer(timeouts.maximumSeconds)
        request.keys(keys)
        guard let (reply, reader) = try exchange(location, request) else {
            throw AgentError(.startFailed, "the agent stopped before it received the keys")
        }
        guard reply == .ok else { throw unexpected(reply) }
        var r = reader
        return try readStatus(&r, location)
    }

    /// The agent's password keys; nil when no agent is unlocked. Each such
    /// request restarts the agent's idle timer.
    /// - Throws: `AgentError`.
    static func passwordKeys(_ location: AgentLocation) throws -> [VaultPasswordKey]? {
        var request = FrameWriter()
        request.integer(AgentProtocol.version)
        request.integer(AgentProtocol.Operation.keys.rawValue)
        guard let (reply, reader) = try exchange(location, request) else { return nil }
        switch reply {
        case .locked:
            return nil
        case .ok:
            var r = reader
            do {
                guard try r.string() == location.vaultPath else {
                    throw AgentError(.protocolError, "the agent at \(location.socketPath) serves another vault")
                }
                return try r.keys()
            } catch let error as AgentProtocol.MalformedFrame {
                throw AgentError(.protocolError, "malformed agent reply: \(error.reason)")
            }
        default:
            throw unexpected(reply)
        }
    }

    /// Asks the agent for `location` to wipe its keys and exit.
    /// - Returns: whether an agent was running.
    /// - Throws: `AgentError`.
    public static func lock(_ location: AgentLocation) throws -> Bool {
        var request = FrameWriter()
        request.integer(AgentProtocol.version)
        request.integer(AgentProtocol.Operation.lock.rawValue)
        do {
            return try exchange(location, request) != nil
        } catch let error as AgentError where error.code == .notRunning {
            return false
        } catch let error as AgentError where error.code == .otherVersion {
            // An agent of another keyshelf version (upgraded while unlocked), checked
            // to run under this uid: every version locks on SIGTERM.
            guard let pid = error.agentPID, pid > 0, kill(pid, SIGTERM) == 0 else { throw error }
            return true
        }
    }

    // MARK: Plumbing

    /// Sends `request` and reads the reply's version and status byte, all
    /// within `timeoutSeconds`.
    /// - Parameter answerLost: turns an error met after the whole request
    ///   was sent (the agent may have acted on it) into the one to throw.
    /// - Returns: nil when the directory or socket is absent.
    /// - Throws: `AgentError` `.notRunning` (stale socket, closed without a
    ///   reply), `.notResponding` (stopped, too slow), `.protocolError`
    ///   (another uid: refused before a byte is sent; a broken reply), `.io`.
    private static func exchange(_ location: AgentLocation, _ request: FrameWriter, timeoutSeconds: Double = replyTimeoutSeconds,
                                 answerLost: ((AgentError) -> AgentError)? = nil) throws -> (AgentProtocol.Reply, FrameReader)? {
        guard try location.checkDirectory(create: false) else { return nil }
        let fd: Int32
        switch try AgentSocket.connect(location.socketPath, timeoutSeconds: connectTimeoutSeconds) {
        case .absent:
            return nil
        case .stale:
            throw AgentError(.notRunning, "the agent for this vault is gone: nobody listens on \(location.socketPath) (it was killed or crashed); `keyshelf unlock` starts a new one")
        case .connected(let connected):
            fd = connected
        }
        defer { close(fd) }
        // Who serves the socket, before a byte is sent: keys and passwords travel here.
        let (owner, pid) = try AgentSocket.peer(fd)
        guard owner == getuid() else {
            throw AgentError(.protocolError, "the agent socket \(location.socketPath) is served by uid \(owner), not by you; refusing to use it")
        }
        try AgentSocket.refuseIfStopped(pid)
        let deadline = Clock.now() + timeoutSeconds
        try AgentSocket.send(fd, request, deadline: deadline)
        let body: SecureBytes
        do {
            guard let received = try AgentSocket.receive(fd, maximumByteCount: AgentProtocol.maximumReplyByteCount, deadline: deadline, peer: pid) else {
                throw AgentError(.notRunning, "the agent (pid \(pid)) closed the connection without answering; it may have crashed")
            }
            body = received
        } catch let error as AgentError {
            throw answerLost?(error) ?? error
        }
        var reader = FrameReader(body)
        do {
            let version = try reader.integer(UInt8.self)
            guard version == AgentProtocol.version else {
                var error = AgentError(.otherVersion, "the agent speaks protocol version \(version), this keyshelf version \(AgentProtocol.version); run `keyshelf lock` and unlock again")
                error.agentPID = pid
                throw error
            }
            guard let reply = AgentProtocol.Reply(rawValue: try reader.integer(UInt8.self)) else {
                throw AgentError(.protocolError, "unknown agent reply")
            }
            return (reply, reader)
        } catch let error as AgentProtocol.MalformedFrame {
            throw AgentError(.protocolError, "malformed agent reply: \(error.reason)")
        }
    }

    /// Status fields: `i32` pid, `u64` idle seconds left, `u64` seconds left, vault path.
    private static func readStatus(_ reader: inout FrameReader, _ location: AgentLocation) throws -> AgentStatus {
        do {
            let pid = try reader.integer(Int32.self)
            let idle = try reader.integer(UInt64.self)
            let left = try reader.integer(UInt64.self)
            let unlocked = try reader.integer(UInt8.self) != 0
            let path = try reader.string()
            guard path == location.vaultPath else {
                throw AgentError(.protocolError, "the agent at \(location.socketPath) serves another vault (\(path))")
            }
            return AgentStatus(unlocked: unlocked, vaultPath: path, idleSecondsLeft: idle, secondsLeft: left, pid: pid)
        } catch let error as AgentProtocol.MalformedFrame {
            throw AgentError(.protocolError, "malformed agent reply: \(error.reason)")
        }
    }

    private static func unexpected(_ reply: AgentProtocol.Reply) -> AgentError {
        AgentError(.protocolError, "the agent refused the request (\(reply))")
    }

    /// Starts the agent daemon and waits until it listens.
    private static func start(_ location: AgentLocation, executable: String) throws {
        let arguments = [executable, AgentServer.commandName, location.directory, location.vaultPath]
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var envp: [UnsafeMutablePointer<CChar>?] = [nil]
        var pid: pid_t = 0
        let rc = keyshelf_spawn_daemon(executable, &argv, &envp, &pid)
        guard rc == 0 else {
            throw AgentError(.startFailed, "cannot start the agent (\(executable)): \(String(cString: strerror(rc)))")
        }
        let deadline = Date().addingTimeInterval(startTimeoutSeconds)
        while Date() < deadline {
            if try listens(location) { return }
            var status: Int32 = 0
            // It exited: another agent won the lock file and is about to listen, or it failed.
            if waitpid(pid, &status, WNOHANG) == pid, try listens(location) { return }
            usleep(10_000)
        }
        throw AgentError(.startFailed, "the agent did not start listening on \(location.socketPath) within \(Int(startTimeoutSeconds)) seconds")
    }

    /// Whether an agent accepts connections at `location` (nothing is sent).
    private static func listens(_ location: AgentLocation) throws -> Bool {
        guard case .connected(let fd) = try AgentSocket.connect(location.socketPath, timeoutSeconds: connectTimeoutSeconds) else { return false }
        close(fd)
        return true
    }
}
