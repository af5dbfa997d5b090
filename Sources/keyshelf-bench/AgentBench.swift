import Foundation
import KeyshelfAgent
import KeyshelfCrypto
import KeyshelfVault

// keyshelf through the agent next to pass and gopass (issue 6 item 6), in one
// run: `get` one password, `list`, search over all fields, `add` one, at 1k
// and 10k credentials. The same credentials in each: server siteN.example,
// account userN@example.com, password password-N (pass/gopass: the file
// siteN.example/userN@example.com.gpg holding "password-N\nlogin: …\nurl: …").
// pass and gopass use a throwaway GPG key without passphrase (ed25519/cv25519)
// in a temporary GNUPGHOME; its gpg-agent is warm before timing starts.
// Needs: apt-get install pass gopass gnupg (Debian's gopass is aviau/gopass
// 1.5, a Go port of pass), and the release keyshelf:
//   swift build -c release --product keyshelf && swift build -c release --product keyshelf-bench
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
    print("credentials  op      keyshelf+agent       pass     gopass   pass/ks  gopass/ks  runs")
    for count in [1_000, 10_000] {
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
            print(String(format: "%11d  %-6@  %14@  %9@  %9@  %7.1fx  %8.1fx  %4d", count, op as NSString,
                         AgentBench.ms(k) as NSString, AgentBench.ms(p) as NSString, AgentBench.ms(g) as NSString, p / k, g / k, runs))
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
    static func spawn(_ path: String, _ arguments: [String], environment: [String: String], stdin: String = "") throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        process.environment = environment
        process.standardOutput = FileHandle(forWritingAtPath: "/dev/null")
        process.standardError = FileHandle(forWritingAtPath: "/dev/null")
        let input = Pipe()
        process.standardInput = input
        try process.run()
        try input.fileHandleForWriting.write(contentsOf: Data(stdin.utf8))
        try input.fileHandleForWriting.close()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw NSError(domain: "AgentBench", code: Int(process.terminationStatus),
                          userInfo: [NSLocalizedDescriptionKey: "\(path) \(arguments.joined(separator: " ")) exited \(process.terminationStatus)"])
        }
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
