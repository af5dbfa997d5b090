import Foundation
import KeyshelfCrypto
import KeyshelfVault

// End-to-end cost of the CLI (issue 3 item 9): `get`, `list`, `list SERVER`,
// `search`, `add` and `rm` run the release `keyshelf` binary against vaults
// of 1k, 10k and 100k credentials, with the interactive and the minimum
// Argon2id limits, next to `keyshelf --version` (process start alone).
// "outside Argon2id" subtracts the measured time of one key derivation at
// the vault's limits.
// Build first: swift build -c release --product keyshelf
func runCLIBenchmarks() throws {
    let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("keyshelf")
    guard FileManager.default.isExecutableFile(atPath: binary.path) else {
        print("no release keyshelf next to keyshelf-bench; run: swift build -c release --product keyshelf")
        return
    }
    let runs = 9
    let version = try CLIBench.median(runs) { try CLIBench.spawn(binary, ["--version"], environment: [:]) }
    print("keyshelf --version: \(CLIBench.ms(version)) (median of \(runs) runs)")
    for (kdfName, limits) in [("interactive", PasswordHashLimits.interactive), ("minimum", PasswordHashLimits.minimum)] {
        let argon = try CLIBench.median(5) {
            _ = try PasswordHash.deriveKey(password: Secret(utf8: "bench"), salt: Random.bytes(PasswordHash.saltByteCount), limits: limits)
        }
        print("\nArgon2id \(kdfName) (\(limits)): \(CLIBench.ms(argon)) per derivation")
        print("credentials  op           median      minus --version  minus --version and Argon2id")
        for count in [1_000, 10_000, 100_000] {
            let bench = try CLIBench(binary: binary, limits: limits, count: count)
            defer { bench.remove() }
            let repeats = count >= 100_000 ? 5 : runs
            var added = 0
            var removed = 0
            let results: [(String, Double)] = [
                ("get", try CLIBench.median(repeats) { try bench.keyshelf(["get", bench.probeServer, bench.probeAccount]) }),
                ("list", try CLIBench.median(repeats) { try bench.keyshelf(["list"]) }),
                ("list SERVER", try CLIBench.median(repeats) { try bench.keyshelf(["list", bench.probeServer]) }),
                ("search", try CLIBench.median(repeats) { try bench.keyshelf(["search", bench.probeAccount]) }),
                ("add", try CLIBench.median(repeats) {
                    added += 1
                    try bench.keyshelf(["add", "bench-add.example", "user\(added)", "--password-stdin"], stdin: "pw-\(added)\n")
                }),
                ("rm", try CLIBench.median(repeats) {
                    removed += 1
                    try bench.keyshelf(["rm", "bench-add.example", "user\(removed)", "--yes"])
                }),
            ]
            for (op, time) in results {
                let overVersion = time - version
                print(String(format: "%11d  %-11@  %9@  %15@  %12@", count, op as NSString,
                             CLIBench.ms(time) as NSString, CLIBench.ms(overVersion) as NSString,
                             CLIBench.ms(overVersion - argon) as NSString))
            }
        }
    }
}

/// One vault of `count` credentials in a temporary directory, and a way to
/// run the CLI against it.
private final class CLIBench {
    let binary: URL
    let root: URL
    let environment: [String: String]
    let probeServer: String
    let probeAccount: String

    init(binary: URL, limits: PasswordHashLimits, count: Int) throws {
        self.binary = binary
        root = FileManager.default.temporaryDirectory.appendingPathComponent("keyshelf-clibench-\(UUID().uuidString)")
        let vault = root.appendingPathComponent("vault")
        let passwordFile = root.appendingPathComponent("master")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        try Data("bench master password\n".utf8).write(to: passwordFile)
        let session = try VaultDirectory(url: vault).create(password: Secret(utf8: "bench master password"), limits: limits)
        // All passwords share one secure buffer: one sodium_malloc per item would
        // exhaust the locked-memory limit long before 100k.
        let passwords = (0..<count).map { Array("password-\($0)".utf8) }
        let storage = SecureBytes(copying: passwords.joined())
        var offset = 0
        // Half in each store; `get` finds the probe in the local store, so no consent is involved.
        try session.modify { contents in
            for index in 0..<count {
                let range = offset..<(offset + passwords[index].count)
                offset = range.upperBound
                let item = Item(account: "user\(index)@example.com", server: "site\(index).example",
                                synchronizable: index % 2 == 1, password: Secret(storage: storage, range: range))
                if index % 2 == 0 { contents.local.append(item) } else { contents.shared.append(item) }
            }
        }
        session.lock()
        probeServer = "site\(count / 2 / 2 * 2).example"
        probeAccount = "user\(count / 2 / 2 * 2)@example.com"
        environment = [
            "KEYSHELF_VAULT": vault.path,
            "KEYSHELF_PASSWORD_FILE": passwordFile.path,
            "HOME": root.path,
        ]
    }

    func keyshelf(_ arguments: [String], stdin: String? = nil) throws {
        try Self.spawn(binary, arguments, environment: environment, stdin: stdin)
    }

    func remove() { try? FileManager.default.removeItem(at: root) }

    /// Runs the binary to completion with output discarded; fails on a non-zero exit.
    /// posix_spawn + waitpid: Foundation's `waitUntilExit` polls in 50 ms
    /// steps on Linux, which would swamp the figures.
    static func spawn(_ binary: URL, _ arguments: [String], environment: [String: String], stdin: String? = nil) throws {
        var input: [Int32] = [0, 0]
        guard pipe(&input) == 0 else { throw BenchError("pipe failed") }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, input[0], 0)
        posix_spawn_file_actions_addclose(&actions, input[1])
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let argv = ([binary.path] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, binary.path, &actions, nil, argv, envp)
        close(input[0])
        guard rc == 0 else {
            close(input[1])
            throw BenchError("cannot start keyshelf: \(String(cString: strerror(rc)))")
        }
        if let stdin { _ = stdin.utf8CString.withUnsafeBufferPointer { write(input[1], $0.baseAddress, stdin.utf8.count) } }
        close(input[1])
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        guard status == 0 else { throw BenchError("keyshelf \(arguments.first ?? "") exited with status \(status)") }
    }

    /// The median wall time of `runs` calls of `body`, in seconds.
    static func median(_ runs: Int, _ body: () throws -> Void) rethrows -> Double {
        var times: [Double] = []
        for _ in 0..<runs {
            let start = DispatchTime.now().uptimeNanoseconds
            try body()
            times.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
        }
        return times.sorted()[runs / 2]
    }

    static func ms(_ seconds: Double) -> String { String(format: "%.1f ms", seconds * 1000) }
}

private struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
