import Foundation
import Glibc
import KeyshelfCrypto
import KeyshelfVault

// keyshelf through the agent next to pass and gopass (issue 6 item 6), in one
// run: `get` one password, `list`, search over all fields, `add` one, at 1k
// and 10k credentials. The same credentials in each: server siteN.example,
// account userN@example.com, password password-N (pass/gopass: the file
// siteN.example/userN@example.com.gpg holding "password-N\nlogin: …\nurl: …").
// pass and gopass use a throwaway GPG key without passphrase (ed25519/cv25519)
// in a temporary GNUPGHOME; its gpg-agent is warm before timing starts.
// KEYSHELF_BENCH_COUNTS=1000,10000 (the default) chooses the sizes. Built with
// --static-swift-stdlib (as a Linux release ships) each keyshelf start is
// about 4 ms cheaper than with the shared Swift libraries.
// Needs: apt-get install pass gopass gnupg (Debian's gopass is aviau/gopass
// 1.5, a Go port of pass), and the release keyshelf:
//   swift build -c release --static-swift-stdlib --product keyshelf   (then the same for keyshelf-bench)
func runAgentBenchmarks() throws {
    let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("keyshelf")
    guard FileManager.default.isExecutableFile(atPath: binary.path) else {
        print("no release keyshelf next to keyshelf-bench; run: swift build -c release --product keyshelf")
        return
    }
    for tool in ["/usr/bin/pass", "/usr/bin/gopass", "/usr/bin/gpg"] where !FileManager.default.isExecutableFile(atPath: tool) {
        print("\(tool) is missing; run: apt-get install pass gopass gnupg")
        return
    }
    print("median wall time per command (process start included); ratio = other / keyshelf via agent")
    print("credentials  op      keyshelf+agent        pass      gopass  pass/ks  gopass/ks  runs")
    let counts = ProcessInfo.processInfo.environment["KEYSHELF_BENCH_COUNTS"]?.split(separator: ",").compactMap { Int($0) } ?? [1_000, 10_000]
    for count in counts {
        let bench = try AgentBench(binary: binary, count: count)
        defer { bench.remove() }
        let probe = count / 2
        let name = "site\(probe).example/user\(probe)@example.com"
        let query = "user\(probe)@"
        let quick = count >= 10_000 ? 5 : 9
        let slow = count >= 10_000 ? 3 : 5
        var added = (keyshelf: 0, pass: 0, gopass: 0)
        let rows: [(String, Int, () throws -> Void, () throws -> Void, () throws -> Void)] = [
            ("get", quick,
             { try bench.keyshelf(["get", "site\(probe).example", "user\(probe)@example.com", "--yes"]) },
             { try bench.pass(["show", name]) },
             { try bench.gopass(["show", name]) }),
            ("list", quick,
             { try bench.keyshelf(["list"]) },
             { try bench.pass(["ls"]) },
             { try bench.gopass(["ls"]) }),
            ("search", slow,
             { try bench.keyshelf(["search", query]) },
             { try bench.pass(["grep", query]) },
             { try bench.gopass(["grep", query]) }),
            ("add", quick,
             { added.keyshelf += 1; try bench.keyshelf(["add", "site0.example", "new\(added.keyshelf)", "--password-stdin"], stdin: "new-password\n") },
             // gopass cannot create directories: every tool adds into the existing site0.example/.
             { added.pass += 1; try bench.pass(["insert", "-e", "site0.example/new\(added.pass)"], stdin: "new-password\n") },
             { added.gopass += 1; try bench.gopass(["insert", "site0.example/new\(added.gopass)"], stdin: "new-password\nnew-password\n") }),
        ]
        for (op, runs, keyshelf, pass, gopass) in rows {
            let k = try AgentBench.median(runs, keyshelf)
            let p = try AgentBench.median(runs, pass)
            let g = try AgentBench.median(runs, gopass)
            let columns = [AgentBench.ms(k), AgentBench.ms(p), AgentBench.ms(g)].map { String(repeating: " ", count: max(0, 10 - $0.count)) + $0 }
            print(String(format: "%11d  %@  %@  %@  %@  %6.1fx  %8.1fx  %4d", count, op.padding(toLength: 6, withPad: " ", startingAt: 0),
                         "    " + columns[0], columns[1], columns[2], p / k, g / k, runs))
            fflush(nil)   // line by line: the pass and gopass searches take minutes
        }
    }
}

/// One set of `count` credentials in a keyshelf vault (unlocked agent), a
/// pass store and a gopass store, each in a temporary directory.
private final class AgentBench {
    let binary: URL
    let root: String
    let keyshelfEnvironment: [String: String]
    let passEnvironment: [String: String]
    let gopassEnvironment: [String: String]

    init(binary: URL, count: Int) throws {
        self.binary = binary
        root = FileManager.default.temporaryDirectory.appendingPathComponent("ksab-\(UUID().uuidString.prefix(8))").path
        let gnupg = root + "/gnupg"
        try FileManager.default.createDirectory(atPath: gnupg, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let base = ["PATH": "/usr/bin:/bin", "HOME": root, "LANG": "C.UTF-8", "GNUPGHOME": gnupg]

        // keyshelf: every credential in the shared credentials, then `keyshelf unlock`.
        let vault = root + "/vault"
        let session = try VaultDirectory(url: URL(fileURLWithPath: vault)).create(password: Secret(utf8: "bench master password"), limits: .moderate)
        try session.modify { contents in
            for index in 0..<count {
                contents.shared.append(Item(account: "user\(index)@example.com", server: "site\(index).example",
                                            comment: "login page https://site\(index).example/login", synchronizable: true,
                                            password: Secret(utf8: "password-\(index)")))
            }
        }
        session.lock()
        try Data("bench master password\n".utf8).write(to: URL(fileURLWithPath: root + "/master"))
        keyshelfEnvironment = base.merging(["KEYSHELF_VAULT": vault, "XDG_RUNTIME_DIR": root + "/run"]) { $1 }
        try FileManager.default.createDirectory(atPath: root + "/run", withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        try Self.spawn(binary.path, ["unlock"], environment: keyshelfEnvironment.merging(["KEYSHELF_PASSWORD_FILE": root + "/master"]) { $1 })

        // pass and gopass: one GPG key, files encrypted by one gpg --multifile run, then copied.
        try Self.spawn("/usr/bin/gpg", ["--batch", "--passphrase", "", "--quick-gen-key", "keyshelf bench <bench@example.invalid>", "future-default", "default", "never"], environment: base)
        let store = root + "/pass"
        try FileManager.default.createDirectory(atPath: store, withIntermediateDirectories: true)
        try Self.spawn("/usr/bin/pass", ["init", "bench@example.invalid"], environment: base.merging(["PASSWORD_STORE_DIR": store]) { $1 })
        for index in 0..<count {
            let directory = "\(store)/site\(index).example"
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            try Data("password-\(index)\nlogin: user\(index)@example.com\nurl: https://site\(index).example/login\n".utf8)
                .write(to: URL(fileURLWithPath: "\(directory)/user\(index)@example.com"))
        }
        try Self.spawn("/bin/sh", ["-c", "cd \"$0\" && find . -type f -name '*@example.com' -print0 | xargs -0 gpg --batch --yes --trust-model always -r bench@example.invalid --multifile --encrypt && find . -type f -name '*@example.com' -delete", store], environment: base)
        let gopassStore = root + "/gopass"
        try Self.spawn("/bin/cp", ["-a", store, gopassStore], environment: base)
        passEnvironment = base.merging(["PASSWORD_STORE_DIR": store]) { $1 }
        gopassEnvironment = base.merging(["PASSWORD_STORE_DIR": gopassStore, "EDITOR": "true", "GOPASS_NO_NOTIFY": "true", "GOPASS_NO_REMINDER": "true"]) { $1 }
        // Warm gpg-agent so the first timed decryption does not pay its start.
        try pass(["show", "site0.example/user0@example.com"])
    }

    func keyshelf(_ arguments: [String], stdin: String = "") throws {
        try Self.spawn(binary.path, arguments, environment: keyshelfEnvironment, stdin: stdin)
    }

    func pass(_ arguments: [String], stdin: String = "") throws {
        try Self.spawn("/usr/bin/pass", arguments, environment: passEnvironment, stdin: stdin)
    }

    func gopass(_ arguments: [String], stdin: String = "") throws {
        try Self.spawn("/usr/bin/gopass", arguments, environment: gopassEnvironment, stdin: stdin)
    }

    func remove() {
        _ = try? Self.spawn(binary.path, ["lock"], environment: keyshelfEnvironment)
        _ = try? Self.spawn("/usr/bin/gpgconf", ["--kill", "gpg-agent"], environment: passEnvironment)
        try? FileManager.default.removeItem(atPath: root)
    }

    /// Runs a program to completion with output discarded; fails on a non-zero exit.
    /// `posix_spawn` + `waitpid` rather than `Process`, whose `waitUntilExit`
    /// polls in 50 ms steps on Linux and would round every figure up to them.
    static func spawn(_ path: String, _ arguments: [String], environment: [String: String], stdin: String = "") throws {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw failure("pipe failed") }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, ends[0], 0)
        posix_spawn_file_actions_addclose(&actions, ends[0])
        posix_spawn_file_actions_addclose(&actions, ends[1])
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        var argv: [UnsafeMutablePointer<CChar>?] = ([path] + arguments).map { strdup($0) } + [nil]
        var envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, path, &actions, nil, &argv, &envp)
        close(ends[0])
        guard rc == 0 else {
            close(ends[1])
            throw failure("cannot start \(path): \(String(cString: strerror(rc)))")
        }
        // A few bytes: they fit the pipe buffer, so this never waits on the child.
        let bytes = Array(stdin.utf8)
        _ = bytes.withUnsafeBytes { write(ends[1], $0.baseAddress, $0.count) }
        close(ends[1])
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        guard status == 0 else {
            throw failure("\(path) \(arguments.joined(separator: " ")) failed (wait status \(status))")
        }
    }

    static func failure(_ text: String) -> NSError {
        NSError(domain: "AgentBench", code: 1, userInfo: [NSLocalizedDescriptionKey: text])
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
