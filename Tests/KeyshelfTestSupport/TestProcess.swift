import Foundation

/// Starts programs that fork a server (tmux, xclip, Xvfb) with `posix_spawn`
/// and reaps them with `waitpid`, standard streams on files or /dev/null;
/// everything else runs through `Program`.
///
/// Not Foundation's `Process`: programs that fork a server (tmux, xclip)
/// keep its descriptors open and it was seen missing their exit here. And
/// the child must not inherit the test runner's blocked or ignored signals
/// (a blocked SIGWINCH hides every resize; a blocked SIGTERM keeps Xvfb alive).
public enum TestProcess {
    /// Starts `argv` with standard input read from `input`, output and error written to `output` and `errors`
    /// (paths; nil for /dev/null).
    /// - Parameter environment: `KEY=VALUE` strings; nil inherits ours.
    /// - Throws: `TestProcessError` when `posix_spawn` fails.
    public static func spawn(_ argv: [String], input: String? = nil, output: String? = nil, errors: String? = nil,
                      environment: [String]? = nil) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, input ?? "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output ?? "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, errors ?? "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        var cArgs = argv.map { strdup($0) } + [nil]
        defer { cArgs.forEach { free($0) } }
        var cEnv = environment.map { $0.map { strdup($0) } + [nil] }
        defer { cEnv?.forEach { free($0) } }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var empty = sigset_t()
        sigemptyset(&empty)
        var all = sigset_t()
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &empty)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var pid: pid_t = 0
        let rc = cEnv == nil
            ? posix_spawn(&pid, argv[0], &actions, &attributes, &cArgs, environ)
            : posix_spawn(&pid, argv[0], &actions, &attributes, &cArgs, &cEnv!)
        guard rc == 0 else { throw TestProcessError(message: "posix_spawn \(argv[0]) failed: \(rc)") }
        return pid
    }

    /// Waits for `pid` to exit; returns its exit status (or 128 + signal).
    @discardableResult
    public static func wait(_ pid: pid_t) -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        return status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
    }

    /// Runs `argv` to its end, standard input from the bytes of `input`; returns the exit status, standard output and error.
    /// - Throws: `TestProcessError` when it cannot start; what writing `input` to a temporary file throws.
    public static func run(_ argv: [String], input: String? = nil, environment: [String]? = nil) throws -> Run {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("keyshelf-test-\(UUID().uuidString)").path
        defer { ["in", "out", "err"].forEach { unlink("\(base).\($0)") } }
        if let input { try input.write(toFile: base + ".in", atomically: false, encoding: .utf8) }
        let pid = try spawn(argv, input: input == nil ? nil : base + ".in", output: base + ".out", errors: base + ".err", environment: environment)
        let status = wait(pid)
        func read(_ suffix: String) -> Data { FileManager.default.contents(atPath: base + suffix) ?? Data() }
        return Run(status: status, stdoutData: read(".out"), stderr: String(decoding: read(".err"), as: UTF8.self))
    }
}

/// A helper program of the tests could not be started or did not do its part.
public struct TestProcessError: Error, CustomStringConvertible {
    public var message: String
    public init(message: String) { self.message = message }
    public var description: String { message }
}
