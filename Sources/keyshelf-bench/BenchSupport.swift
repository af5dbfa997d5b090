import Foundation
import KeyshelfCrypto

/// A benchmark that could not run as planned (a child failed, a count was off).
struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// The median wall time of `runs` calls of `body`, in seconds.
func medianSeconds(_ runs: Int, _ body: () throws -> Void) rethrows -> Double {
    var samples = Samples()
    for _ in 0..<runs { samples.append(try seconds(body)) }
    return samples.median
}

/// Wall times of repeated runs of one command, in seconds.
struct Samples {
    private(set) var seconds: [Double] = []

    mutating func append(_ value: Double) { seconds.append(value) }

    var median: Double { seconds.sorted()[seconds.count / 2] }
    var fastest: Double { seconds.min() ?? 0 }
    var slowest: Double { seconds.max() ?? 0 }

    /// "12.3 ms (11.0–15.2)": the median, then the fastest and slowest run.
    var summary: String {
        String(format: "%.1f (%.1f–%.1f)", median * 1000, fastest * 1000, slowest * 1000)
    }
}

/// The wall time of one call of `body`, in seconds.
func seconds(_ body: () throws -> Void) rethrows -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    try body()
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
}

/// The 1-minute load average (/proc/loadavg), for the record of a run.
func loadAverage() -> String {
    (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))?.split(separator: " ").first.map(String.init) ?? "?"
}

/// `seconds` as "12.3 ms".
func milliseconds(_ seconds: Double) -> String { String(format: "%.1f ms", seconds * 1000) }

/// Runs a program to completion with `stdin` (a few bytes) on standard input
/// and its output discarded; throws on an exit status outside `accepting`.
/// `posix_spawn` + `waitpid` rather than `Process`, whose `waitUntilExit`
/// polls in 50 ms steps on Linux and would round every figure up to them.
func spawnAndWait(_ path: String, _ arguments: [String], environment: [String: String], stdin: String = "",
                  accepting: Set<Int32> = [0]) throws {
    let pid = try spawn(path, arguments, environment: environment, stdin: stdin)
    try reap(pid, path, arguments, accepting: accepting)
}

/// Where one run of a program spent its time, in seconds.
struct ChildTimes: CustomStringConvertible {
    var wall: Double
    /// utime + stime of the program itself.
    var ownCPU: Double
    /// utime + stime of the children it waited for (cutime + cstime).
    var childrenCPU: Double

    var description: String { "\(milliseconds(wall)) (\(milliseconds(ownCPU)); \(milliseconds(childrenCPU)))" }
}

/// `spawnAndWait`, also reading the child's CPU times from /proc/PID/stat
/// once it exited and before it is reaped (`waitid` with `WNOWAIT`).
func spawnAndMeasure(_ path: String, _ arguments: [String], environment: [String: String]) throws -> ChildTimes {
    let start = DispatchTime.now().uptimeNanoseconds
    let pid = try spawn(path, arguments, environment: environment, stdin: "")
    var info = siginfo_t()
    while waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) < 0 && errno == EINTR {}
    let wall = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    let stat = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? ""
    try reap(pid, path, arguments, accepting: [0])
    // After "pid (comm)": field 3 is the state, so utime…cstime (14–17) are 11…14 here.
    let fields = stat.lastIndex(of: ")").map { stat[stat.index(after: $0)...].split(separator: " ") } ?? []
    guard fields.count > 14 else { throw BenchError("cannot read /proc/\(pid)/stat") }
    let ticks = fields[11...14].map { Double($0) ?? 0 }
    let perSecond = Double(sysconf(Int32(_SC_CLK_TCK)))
    return ChildTimes(wall: wall, ownCPU: (ticks[0] + ticks[1]) / perSecond, childrenCPU: (ticks[2] + ticks[3]) / perSecond)
}

/// `texts` as secrets sharing one secure buffer: one `sodium_malloc` per
/// item would exhaust the locked memory and the mappings long before 100k.
func sharedSecrets(_ texts: [String]) -> [Secret] {
    let bytes = texts.map { Array($0.utf8) }
    let storage = SecureBytes(copying: bytes.joined())
    var offset = 0
    return bytes.map { text in
        defer { offset += text.count }
        return Secret(storage: storage, range: offset..<(offset + text.count))
    }
}

/// Starts a program with `stdin` (a few bytes) on standard input and its output discarded.
private func spawn(_ path: String, _ arguments: [String], environment: [String: String], stdin: String) throws -> pid_t {
    var ends: [Int32] = [0, 0]
    guard pipe(&ends) == 0 else { throw BenchError("pipe failed") }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_adddup2(&actions, ends[0], 0)
    posix_spawn_file_actions_addclose(&actions, ends[0])
    posix_spawn_file_actions_addclose(&actions, ends[1])
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
    let argv: [UnsafeMutablePointer<CChar>?] = ([path] + arguments).map { strdup($0) } + [nil]
    let envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer { (argv + envp).forEach { free($0) } }
    var pid: pid_t = 0
    let rc = posix_spawn(&pid, path, &actions, nil, argv, envp)
    close(ends[0])
    guard rc == 0 else {
        close(ends[1])
        throw BenchError("cannot start \(path): \(String(cString: strerror(rc)))")
    }
    // A few bytes fit the pipe buffer, so this never waits on the child.
    let bytes = Array(stdin.utf8)
    _ = bytes.withUnsafeBytes { write(ends[1], $0.baseAddress, $0.count) }
    close(ends[1])
    return pid
}

/// Waits for `pid` and throws on an exit status outside `accepting`.
private func reap(_ pid: pid_t, _ path: String, _ arguments: [String], accepting: Set<Int32>) throws {
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    // A normal exit's wait status is the exit status shifted left by 8 bits.
    guard status & 0x7f == 0, accepting.contains((status >> 8) & 0xff) else {
        throw BenchError("\(path) \(arguments.joined(separator: " ")) failed (wait status \(status))")
    }
}
