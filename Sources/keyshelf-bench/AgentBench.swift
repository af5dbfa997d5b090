import Foundation
import Glibc
import KeyshelfCrypto
import KeyshelfVault

// keyshelf through the agent next to pass and gopass (issues 6 and 15), in one
// run. Rows: `get` one password; `list`; `search` over all fields (a text
// only the notes hold: pass and gopass must `grep` every decrypted file);
// `find` by name (an account: `pass find`, `gopass find` look at file names
// only); `add` of an entry right after an `rm` of it, as a user re-adding an
// account does (keyshelf revives the tombstone; the `rm` is not timed);
// keyshelf only, 20 runs each (issue 14): `edit` one credential's label
// (`keyshelf edit`, which opens the vault with the agent's keys) and `update`
// its password (`add --yes` of the saved account, which the agent answers).
// The same credentials in each: server siteN.example, account
// userN@example.com, password password-N, notes "login page
// https://siteN.example/login" (pass/gopass: the file
// siteN.example/userN@example.com.gpg holding "password-N\nlogin: …\nurl: …").
// pass and gopass use a throwaway GPG key without passphrase (ed25519/cv25519)
// in a temporary GNUPGHOME; its gpg-agent is warm before timing starts.
// Runs are interleaved (keyshelf, pass, gopass, keyshelf, …) so that the load
// of other work on the machine falls on every tool alike.
// Environment: KEYSHELF_BENCH_COUNTS=1000,10000,100000 (the default) the
// sizes; KEYSHELF_BENCH_OPS=get,list,search,find,add,edit,update (the default)
// the rows (with only edit and update, pass and gopass are neither needed nor
// set up); KEYSHELF_BENCH_PEERS_UP_TO=N (default 100000) the largest size with
// pass and gopass; KEYSHELF_BENCH_GREP_UP_TO=N (default 10000) the largest size for
// their `grep`, which decrypts every file (minutes at 10k);
// KEYSHELF_BENCH_HOLD=1 prints each size's keyshelf environment and waits for
// a line on standard input before timing (to profile its agent meanwhile).
// Beside the wall times, each row gives the agent's CPU time per keyshelf run
// (utime + stime of /proc/PID/stat over the row, so ±10 ms over all its runs;
// an untimed `get` first lets the agent open the vault before any row), and
// each size ends with the agent's peak and current RSS (VmHWM, VmRSS).
// Built with --static-swift-stdlib (as a Linux release ships) each keyshelf
// start is about 4 ms cheaper than with the shared Swift libraries.
// Needs: apt-get install pass gopass gnupg (Debian's gopass is aviau/gopass
// 1.5, a Go port of pass), and the release keyshelf:
//   swift build -c release --static-swift-stdlib
func runAgentBenchmarks() throws {
    let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("keyshelf")
    guard FileManager.default.isExecutableFile(atPath: binary.path) else {
        print("no release keyshelf next to keyshelf-bench; run: swift build -c release --static-swift-stdlib")
        return
    }
    let environment = ProcessInfo.processInfo.environment
    let counts = environment["KEYSHELF_BENCH_COUNTS"]?.split(separator: ",").compactMap { Int($0) } ?? [1_000, 10_000, 100_000]
    let ops = environment["KEYSHELF_BENCH_OPS"]?.split(separator: ",").map(String.init)
    let peersUpTo = environment["KEYSHELF_BENCH_PEERS_UP_TO"].flatMap { Int($0) } ?? 100_000
    let keyshelfOnly: Set = ["edit", "update"]
    let wantsPeers = ops.map { !Set($0).isSubset(of: keyshelfOnly) } ?? true
    if wantsPeers && counts.contains(where: { $0 <= peersUpTo }) {
        for tool in ["/usr/bin/pass", "/usr/bin/gopass", "/usr/bin/gpg"] where !FileManager.default.isExecutableFile(atPath: tool) {
            print("\(tool) is missing; run: apt-get install pass gopass gnupg")
            return
        }
    }
    let grepUpTo = environment["KEYSHELF_BENCH_GREP_UP_TO"].flatMap { Int($0) } ?? 10_000
    print("wall time per command in ms (process start included): median (fastest–slowest); ratio = peer median / keyshelf median")
    print("credentials  op      keyshelf+agent            pass                      gopass                    pass/ks  gopass/ks  runs  load  agent CPU/run")
    for count in counts {
        let setUp = Date()
        let bench = try AgentBench(binary: binary, count: count, peers: wantsPeers && count <= peersUpTo)
        defer { bench.remove() }
        print("# \(count) credentials set up in \(String(format: "%.0f", Date().timeIntervalSince(setUp))) s, load \(loadAverage())")
        if environment["KEYSHELF_BENCH_HOLD"] == "1" {
            print("# hold: " + bench.keyshelfEnvironment.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " "))
            fflush(nil)
            _ = readLine()
        }
        fflush(nil)
        let probe = count / 2
        // The agent opens the vault on its first operation (at 100k about 130 ms):
        // one untimed `get` first, so no row pays it and the CPU column is per operation.
        try bench.keyshelf(["get", "site\(probe).example", "user\(probe)@example.com", "--yes"])
        let name = "site\(probe).example/user\(probe)@example.com"
        let quick = count >= 100_000 ? 7 : 11
        let grepRuns = count >= 10_000 ? 1 : 3
        let peerGrep = bench.hasPeers && count <= grepUpTo
        let noteText = "site\(probe).example/login"
        // The re-added entry: its directory keeps another file, so neither peer removes it on `rm`.
        let readded = (server: "site0.example", account: "user0@example.com", path: "site0.example/user0@example.com")
        // Each edit writes a value the record does not hold yet, so every run saves.
        var edits = 0
        let rows: [AgentRow] = [
            AgentRow(op: "get", runs: quick,
                     keyshelf: { try bench.keyshelf(["get", "site\(probe).example", "user\(probe)@example.com", "--yes"]) },
                     pass: { try bench.pass(["show", name]) },
                     gopass: { try bench.gopass(["show", name]) }),
            AgentRow(op: "list", runs: quick,
                     keyshelf: { try bench.keyshelf(["list"]) },
                     pass: { try bench.pass(["ls"]) },
                     gopass: { try bench.gopass(["ls"]) }),
            AgentRow(op: "search", runs: grepRuns,
                     keyshelf: { try bench.keyshelf(["search", noteText]) },
                     pass: peerGrep ? { try bench.pass(["grep", noteText]) } : nil,
                     gopass: peerGrep ? { try bench.gopass(["grep", noteText]) } : nil),
            AgentRow(op: "find", runs: quick,
                     keyshelf: { try bench.keyshelf(["search", "user\(probe)@"]) },
                     pass: { try bench.pass(["find", "user\(probe)@"]) },
                     gopass: { try bench.gopass(["find", "user\(probe)@"]) }),
            AgentRow(op: "add", runs: quick,
                     keyshelf: { try bench.keyshelf(["add", readded.server, readded.account, "--password-stdin"], stdin: "new-password\n") },
                     pass: { try bench.pass(["insert", "-e", readded.path], stdin: "new-password\n") },
                     gopass: { try bench.gopass(["insert", readded.path], stdin: "new-password\nnew-password\n") },
                     keyshelfBefore: { try bench.keyshelf(["rm", readded.server, readded.account, "--yes"]) },
                     passBefore: { try bench.pass(["rm", "-f", readded.path]) },
                     gopassBefore: { try bench.gopass(["rm", readded.path], stdin: "y\n") }),
            AgentRow(op: "edit", runs: 20,
                     keyshelf: {
                         edits += 1
                         try bench.keyshelf(["edit", "site\(probe).example", "user\(probe)@example.com", "--label", "edited \(edits)"])
                     },
                     pass: nil, gopass: nil),
            AgentRow(op: "update", runs: 20,
                     keyshelf: {
                         edits += 1
                         try bench.keyshelf(["add", "site\(probe).example", "user\(probe)@example.com", "--password-stdin", "--yes"],
                                            stdin: "updated-\(edits)\n")
                     },
                     pass: nil, gopass: nil),
        ]
        for row in rows where ops?.contains(row.op) ?? true {
            let cpuBefore = bench.agent.cpuSeconds()
            let samples = try row.measure(peers: bench.hasPeers)
            let agentCPU = (bench.agent.cpuSeconds() - cpuBefore) / Double(row.runs)
            let k = samples[0]?.median ?? 1
            let cells = samples.map { $0.map { $0.summary } ?? "—" }.map { $0.padding(toLength: 24, withPad: " ", startingAt: 0) }
            let ratios = samples.dropFirst().map { $0.map { String(format: "%.1fx", $0.median / k) } ?? "—" }
            print(String(format: "%11d  %@  %@  %@  %@  %7@  %9@  %4d  %@  %@", count, row.op.padding(toLength: 6, withPad: " ", startingAt: 0),
                         cells[0], cells[1], cells[2], ratios[0], ratios[1], row.runs, loadAverage(), milliseconds(agentCPU)))
            fflush(nil)   // line by line: the pass and gopass searches take minutes
        }
        print("# \(count) credentials: agent peak RSS \(bench.agent.memory("VmHWM")), now \(bench.agent.memory("VmRSS"))")
    }
}

/// One row of the table: a command per tool (nil: not run at this size), and
/// an untimed step before each run (the `rm` before an `add`).
private struct AgentRow {
    typealias Step = () throws -> Void
    let op: String
    let runs: Int
    let keyshelf: Step
    let pass: Step?
    let gopass: Step?
    var keyshelfBefore: Step? = nil
    var passBefore: Step? = nil
    var gopassBefore: Step? = nil

    /// The samples of keyshelf, pass and gopass, runs interleaved.
    func measure(peers: Bool) throws -> [Samples?] {
        let tools: [(Step?, Step?)] = [(keyshelf, keyshelfBefore), (peers ? pass : nil, passBefore), (peers ? gopass : nil, gopassBefore)]
        var samples: [Samples?] = tools.map { $0.0 == nil ? nil : Samples() }
        for _ in 0..<runs {
            for (index, (step, before)) in tools.enumerated() {
                guard let step else { continue }
                try before?()
                samples[index]?.append(try seconds(step))
            }
        }
        return samples
    }
}

/// One set of `count` credentials in a keyshelf vault (unlocked agent), and
/// with `peers` a pass store and a gopass store, each in a temporary directory.
private final class AgentBench {
    let binary: URL
    let root: String
    let hasPeers: Bool
    let keyshelfEnvironment: [String: String]
    let passEnvironment: [String: String]
    let gopassEnvironment: [String: String]
    /// The keyshelf agent serving `root`'s vault.
    let agent: AgentProcess

    init(binary: URL, count: Int, peers: Bool) throws {
        self.binary = binary
        hasPeers = peers
        root = FileManager.default.temporaryDirectory.appendingPathComponent("ksab-\(UUID().uuidString.prefix(8))").path
        let gnupg = root + "/gnupg"
        try FileManager.default.createDirectory(atPath: gnupg, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let base = ["PATH": "/usr/bin:/bin", "HOME": root, "LANG": "C.UTF-8", "GNUPGHOME": gnupg]

        // keyshelf: every credential in the shared credentials, then `keyshelf unlock`.
        let vault = root + "/vault"
        let session = try VaultDirectory(url: URL(fileURLWithPath: vault)).create(password: Secret(utf8: "bench master password"), limits: .moderate)
        // All passwords share one secure buffer: one sodium_malloc per item
        // would exhaust the locked-memory limit long before 100k.
        let passwords = (0..<count).map { Array("password-\($0)".utf8) }
        let storage = SecureBytes(copying: passwords.joined())
        var offset = 0
        try session.modify { contents in
            for index in 0..<count {
                let range = offset..<(offset + passwords[index].count)
                offset = range.upperBound
                contents.shared.append(Item(account: "user\(index)@example.com", server: "site\(index).example",
                                            comment: "login page https://site\(index).example/login", synchronizable: true,
                                            password: Secret(storage: storage, range: range)))
            }
            // Keeps site0.example/ alive in the peers' stores while the re-added entry is away.
            contents.shared.append(Item(account: "keeper@example.com", server: "site0.example", synchronizable: true,
                                        password: Secret(utf8: "keeper")))
        }
        session.lock()
        try Data("bench master password\n".utf8).write(to: URL(fileURLWithPath: root + "/master"))
        keyshelfEnvironment = base.merging(["KEYSHELF_VAULT": vault, "XDG_RUNTIME_DIR": root + "/run"]) { $1 }
        try FileManager.default.createDirectory(atPath: root + "/run", withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        try spawnAndWait(binary.path, ["unlock"], environment: keyshelfEnvironment.merging(["KEYSHELF_PASSWORD_FILE": root + "/master"]) { $1 })
        agent = try AgentProcess(servingUnder: root)

        let store = root + "/pass"
        let gopassStore = root + "/gopass"
        passEnvironment = base.merging(["PASSWORD_STORE_DIR": store]) { $1 }
        gopassEnvironment = base.merging(["PASSWORD_STORE_DIR": gopassStore, "EDITOR": "true", "GOPASS_NO_NOTIFY": "true", "GOPASS_NO_REMINDER": "true"]) { $1 }
        guard peers else {
            shareSchedulingPriority()
            return
        }
        // pass and gopass: one GPG key, files encrypted by one gpg --multifile run, then copied.
        try spawnAndWait("/usr/bin/gpg", ["--batch", "--passphrase", "", "--quick-gen-key", "keyshelf bench <bench@example.invalid>", "future-default", "default", "never"], environment: base)
        try FileManager.default.createDirectory(atPath: store, withIntermediateDirectories: true)
        try spawnAndWait("/usr/bin/pass", ["init", "bench@example.invalid"], environment: passEnvironment)
        for index in 0..<count {
            let directory = "\(store)/site\(index).example"
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            try Data("password-\(index)\nlogin: user\(index)@example.com\nurl: https://site\(index).example/login\n".utf8)
                .write(to: URL(fileURLWithPath: "\(directory)/user\(index)@example.com"))
        }
        try Data("keeper\n".utf8).write(to: URL(fileURLWithPath: "\(store)/site0.example/keeper@example.com"))
        try spawnAndWait("/bin/sh", ["-c", "cd \"$0\" && find . -type f -name '*@example.com' -print0 | xargs -0 gpg --batch --yes --trust-model always -r bench@example.invalid --multifile --encrypt && find . -type f -name '*@example.com' -delete", store], environment: base)
        try spawnAndWait("/bin/cp", ["-a", store, gopassStore], environment: base)
        // Warm gpg-agent so the first timed decryption does not pay its start.
        try pass(["show", "site0.example/user0@example.com"])
        shareSchedulingPriority()
    }

    /// Gives the daemons of this set-up (the keyshelf agent, gpg-agent: each
    /// in its own session, so in its own scheduler autogroup) the bench's
    /// autogroup nice value, so that a bench run at `echo -10 >
    /// /proc/self/autogroup` on a busy machine favours every tool alike.
    private func shareSchedulingPriority() {
        guard let own = try? String(contentsOfFile: "/proc/self/autogroup", encoding: .utf8),
              let nice = own.split(separator: " ").last?.trimmingCharacters(in: .whitespacesAndNewlines), nice != "0",
              let pids = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return }
        for pid in pids where pid.allSatisfy(\.isNumber) {
            guard let cmdline = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline"),
                  String(decoding: cmdline, as: UTF8.self).contains(root) else { continue }
            try? Data(nice.utf8).write(to: URL(fileURLWithPath: "/proc/\(pid)/autogroup"))
        }
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
        if hasPeers { _ = try? spawnAndWait("/usr/bin/gpgconf", ["--kill", "gpg-agent"], environment: passEnvironment) }
        try? FileManager.default.removeItem(atPath: root)
    }
}

/// The agent a bench started, read through /proc.
struct AgentProcess {
    let pid: String

    /// The process whose command line is the agent's (`__agent`) for a vault under `root`.
    init(servingUnder root: String) throws {
        let pids = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        let found = pids.first { pid in
            guard pid.allSatisfy(\.isNumber), let cmdline = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") else { return false }
            let arguments = cmdline.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
            return arguments.count > 2 && arguments[1] == "__agent" && arguments.dropFirst(2).contains { $0.hasPrefix(root) }
        }
        guard let found else { throw BenchError("no agent process serves \(root)") }
        pid = found
    }

    /// utime + stime of every thread, the ones that ended included, in seconds.
    func cpuSeconds() -> Double {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let end = stat.lastIndex(of: ")") else { return 0 }
        // After "pid (comm)": field 3 is the state, so utime (14) and stime (15) are 11 and 12 here.
        let fields = stat[stat.index(after: end)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// A line of /proc/PID/status, e.g. "VmHWM" → "97 MB".
    func memory(_ field: String) -> String {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix(field + ":") }),
              let kilobytes = line.split(separator: " ").dropFirst().first.flatMap({ Double($0) }) else { return "?" }
        return String(format: "%.1f MB", kilobytes * 1024 / 1_000_000)
    }
}
