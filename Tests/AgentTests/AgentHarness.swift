import Foundation
import KeyshelfTestSupport
import Glibc
import KeyshelfAgent
import KeyshelfCredentials
import KeyshelfVault

struct HarnessError: Error, CustomStringConvertible {
    var description: String
}

/// A throwaway vault (`TemporaryVault` of KeyshelfTestSupport, with a short
/// root: socket paths must fit 107 bytes) and its own `XDG_RUNTIME_DIR`, so
/// each test has its own agent. `stop()` ends every agent the test started
/// (lock, then SIGKILL if it is still there).
final class AgentHarness: @unchecked Sendable {
    static let masterPassword = TemporaryVault.masterPassword

    /// The executable under test (`BuiltProduct.keyshelf`).
    static var binary: String { BuiltProduct.keyshelf.path }

    private let temporary: TemporaryVault
    var root: String { temporary.root.path }
    var vault: String { temporary.directory.path }
    var passwordFile: String { temporary.passwordFile.path }
    /// `$XDG_RUNTIME_DIR` of this test; the agent's directory is `runtime/keyshelf`.
    let runtime: String
    private var pids: Set<Int32> = []

    /// A short root under /tmp with an initialised vault.
    init(initialize: Bool = true) throws {
        temporary = try TemporaryVault(initialize: false, shortRoot: true)
        runtime = temporary.root.path + "/run"
        mkdir(runtime, 0o700)
        if initialize {
            try check(run(["init"]))
        }
    }

    /// The environment of every run: `TemporaryVault.environment` and the runtime directory.
    var environment: [String: String] {
        temporary.environment.merging(["XDG_RUNTIME_DIR": runtime]) { $1 }
    }

    /// Runs `keyshelf arguments` without a controlling terminal (`setsid -w`).
    /// `withPassword: false` removes `$KEYSHELF_PASSWORD_FILE`: only the agent can open the vault.
    func run(_ arguments: [String], stdin: String = "", withPassword: Bool = true,
             changes: (inout [String: String]) -> Void = { _ in }) throws -> Run {
        var env = environment
        if !withPassword { env["KEYSHELF_PASSWORD_FILE"] = nil }
        changes(&env)
        let result = try temporary.runKeyshelf(arguments, stdin: Data(stdin.utf8), environment: env)
        if arguments.first == "unlock", result.status == 0, let pid = try? agentPID() { remember(pid) }
        return result
    }

    /// Throws unless `result` exited 0.
    @discardableResult
    func check(_ result: Run) throws -> Run {
        guard result.status == 0 else { throw HarnessError(description: "command failed: \(result)") }
        return result
    }

    /// `keyshelf status --json` as a dictionary (exit 0 unlocked, 9 locked).
    func status() throws -> [String: Any] {
        let result = try run(["status", "--json"])
        guard result.status == 0 || result.status == 9 else { throw HarnessError(description: "status failed: \(result)") }
        return try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any] ?? [:]
    }

    /// Where this test's agent listens.
    var location: AgentLocation {
        AgentLocation(vault: VaultDirectory(url: URL(fileURLWithPath: vault)), environment: ["XDG_RUNTIME_DIR": runtime])
    }

    /// The pid of this vault's agent (from its `status` reply), nil when none answers.
    func agentPID() throws -> Int32? {
        try AgentClient.status(location)?.pid
    }

    func remember(_ pid: Int32) {
        pids.insert(pid)
    }

    /// Whether process `pid` is still running (zombies count as gone).
    static func isAlive(_ pid: Int32) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8) else { return false }
        guard let close = stat.lastIndex(of: ")") else { return false }
        return !stat[stat.index(after: close)...].trimmingCharacters(in: .whitespaces).hasPrefix("Z")
    }

    /// Waits up to `seconds` for `condition`.
    static func eventually(_ seconds: Double, _ condition: () throws -> Bool) rethrows -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        repeat {
            if try condition() { return true }
            usleep(50_000)
        } while Date() < deadline
        return try condition()
    }

    /// Locks the agent and kills whatever agent of this test is left, then removes the files.
    func stop() {
        _ = try? run(["lock"])
        if let pid = try? agentPID() { pids.insert(pid) }
        for pid in pids where Self.isAlive(pid) { kill(pid, SIGKILL) }
        try? FileManager.default.removeItem(atPath: root)
    }
}

/// Answers consent requests from a script (declining once it runs out),
/// running `check` first (to look at the vault while the question is open),
/// and records them.
final class ScriptedConsent: Consent, @unchecked Sendable {
    private var script: [ConsentAnswer]
    private let check: (ConsentRequest) -> Void
    private(set) var requests: [ConsentRequest] = []
    init(_ script: [ConsentAnswer], check: @escaping (ConsentRequest) -> Void = { _ in }) {
        self.script = script
        self.check = check
    }
    func ask(_ request: ConsentRequest) -> ConsentAnswer {
        check(request)
        requests.append(request)
        return script.isEmpty ? .declined : script.removeFirst()
    }
}

extension AgentHarness {
    /// `operation` sent to this harness's agent, as the CLI's `VaultOpener` sends it.
    func perform(_ operation: ShelfOperation, consent: any Consent = DeclineAll(), approveAll: Bool = false) throws -> ShelfResult? {
        try AgentClient.perform(operation, for: VaultDirectory(url: URL(fileURLWithPath: vault)),
                                environment: ["XDG_RUNTIME_DIR": runtime], consent: consent, approveAll: approveAll)
    }
}
