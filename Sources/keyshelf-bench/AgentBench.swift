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
// KEYSHELF_BENCH_COUNTS=1000,10000 (the default) chooses the sizes,
// KEYSHELF_BENCH_OPS=get,list,search,add (the default) the rows (the pass
// and gopass searches take minutes at 10k). Built with
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
        let quick = 11
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
        let ops = ProcessInfo.processInfo.environment["KEYSHELF_BENCH_OPS"]?.split(separator: ",").map(String.init)
        for (op, runs, keyshelf, pass, gopass) in rows where ops?.contains(op) ?? true {
            let k = try medianSeconds(runs, keyshelf)
            let p = try medianSeconds(runs, pass)
            let g = try medianSeconds(runs, gopass)
            let columns = [milliseconds(k), milliseconds(p), milliseconds(g)].map { String(repeating: " ", count: max(0, 10 - $0.count)) + $0 }
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
        try spawnAndWait(binary.path, ["unlock"], environment: keyshelfEnvironment.merging(["KEYSHELF_PASSWORD_FILE": root + "/master"]) { $1 })

        // pass and gopass: one GPG key, files encrypted by one gpg --multifile run, then copied.
        try spawnAndWait("/usr/bin/gpg", ["--batch", "--passphrase", "", "--quick-gen-key", "keyshelf bench <bench@example.invalid>", "future-default", "default", "never"], environment: base)
        let store = root + "/pass"
        try FileManager.default.createDirectory(atPath: store, withIntermediateDirectories: true)
        try spawnAndWait("/usr/bin/pass", ["init", "bench@example.invalid"], environment: base.merging(["PASSWORD_STORE_DIR": store]) { $1 })
        for index in 0..<count {
            let directory = "\(store)/site\(index).example"
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            try Data("password-\(index)\nlogin: user\(index)@example.com\nurl: https://site\(index).example/login\n".utf8)
                .write(to: URL(fileURLWithPath: "\(directory)/user\(index)@example.com"))
        }
        try spawnAndWait("/bin/sh", ["-c", "cd \"$0\" && find . -type f -name '*@example.com' -print0 | xargs -0 gpg --batch --yes --trust-model always -r bench@example.invalid --multifile --encrypt && find . -type f -name '*@example.com' -delete", store], environment: base)
        let gopassStore = root + "/gopass"
        try spawnAndWait("/bin/cp", ["-a", store, gopassStore], environment: base)
        passEnvironment = base.merging(["PASSWORD_STORE_DIR": store]) { $1 }
        gopassEnvironment = base.merging(["PASSWORD_STORE_DIR": gopassStore, "EDITOR": "true", "GOPASS_NO_NOTIFY": "true", "GOPASS_NO_REMINDER": "true"]) { $1 }
        // Warm gpg-agent so the first timed decryption does not pay its start.
        try pass(["show", "site0.example/user0@example.com"])
    }

    func keyshelf(_ arguments: [String], stdin: String = "") throws {
        try spawnAndWait(binary.path, arguments, environment: keyshelfEnvironment, stdin: stdin)
    }

    func pass(_ arguments: [String], stdin: String = "") throws {
        try spawnAndWait("/usr/bin/pass", arguments, environment: passEnvironment, stdin: stdin)
    }

    func gopass(_ arguments: [String], stdin: String = "") throws {
        try spawnAndWait("/usr/bin/gopass", arguments, environment: gopassEnvironment, stdin: stdin)
    }

    func remove() {
        _ = try? spawnAndWait(binary.path, ["lock"], environment: keyshelfEnvironment)
        _ = try? spawnAndWait("/usr/bin/gpgconf", ["--kill", "gpg-agent"], environment: passEnvironment)
        try? FileManager.default.removeItem(atPath: root)
    }
}
