import Foundation
import KeyshelfTestSupport
import Testing

/// `keyshelf sync` end to end: real git (Debian's), bare repositories on disk
/// as `file://` remotes, no network; each machine a vault directory of its own
/// with the same master password and its own HOME (docs/sync.md).
@Suite(.serialized) struct SyncTests {
    /// A bare remote and machines around it.
    final class World: @unchecked Sendable {
        let root: URL
        let remote: URL
        var remoteURL: String { "file://" + remote.path }

        init() throws {
            root = FileManager.default.temporaryDirectory.appendingPathComponent("keyshelf-sync-\(UUID().uuidString)")
            remote = root.appendingPathComponent("remote.git")
            try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
            let made = try Program.run("/usr/bin/git", ["init", "--quiet", "--bare", "--initial-branch=main", remote.path],
                                               environment: ["PATH": "/usr/bin:/bin", "GIT_CONFIG_NOSYSTEM": "1", "HOME": root.path])
            guard made.status == 0 else { throw SetupError(run: made) }
        }

        deinit { try? FileManager.default.removeItem(at: root) }

        /// A machine: a vault (initialised unless it is to be cloned) whose HOME has a git identity.
        func machine(initialize: Bool = true) throws -> TestVault {
            let vault = try TestVault(initialize: false)
            try "[user]\n\tname = Test\n\temail = test@example.invalid\n[init]\n\tdefaultBranch = main\n"
                .write(to: vault.root.appendingPathComponent(".gitconfig"), atomically: true, encoding: .utf8)
            if initialize {
                let result = try vault.sync(["init"])
                guard result.status == 0 else { throw SetupError(run: result) }
            }
            return vault
        }
    }

    @Test func setupCloneAndSyncBothWaysWithNothingInGitButSealedFilesAndCounts() throws {
        let world = try World()
        let a = try world.machine()
        try a.add("example.com", "alice", password: "first-secret-A")
        #expect(try a.sync(["sync", "setup", world.remoteURL]).status == 0)
        let b = try world.machine(initialize: false)
        let cloned = try b.sync(["sync", "clone", world.remoteURL])
        #expect(cloned.status == 0, "\(cloned)")
        #expect(cloned.stderr.contains("opslimit 1"), "clone names the Argon2id limits it adopted")
        #expect(try b.sync(["get", "example.com", "alice", "--yes"]).stdout == "first-secret-A\n")

        try b.add("example.com", "bob", password: "bob-secret-B")
        #expect(try b.sync(["sync"]).status == 0)
        let pulled = try a.sync(["sync"])
        #expect(pulled.status == 0 && pulled.stdout.contains("added example.com \"bob\""), "\(pulled)")
        #expect(try a.sync(["get", "example.com", "bob", "--yes"]).stdout == "bob-secret-B\n")

        // Commit messages carry counts; no object in the remote holds a password or a name.
        let subjects = try git(["log", "--format=%s", "main"], in: world.remote, a).lines
        #expect(!subjects.isEmpty && subjects.allSatisfy { $0.hasPrefix("keyshelf sync: ") && !$0.contains("example") })
        let objects = try git(["cat-file", "--batch-all-objects", "--batch"], in: world.remote, a).stdoutData
        for needle in ["first-secret-A", "bob-secret-B", "alice", "example.com"] {
            #expect(objects.range(of: Data(needle.utf8)) == nil, "\(needle) is in git's objects")
        }
        let log = try b.sync(["sync", "log"])
        #expect(log.status == 0 && log.stdout.contains("added example.com \"bob\"") && !log.stdout.contains("secret"), "\(log)")
        // Staged work keyshelf did not make is refused, before any password is asked.
        try "# mine\n".write(to: a.directory.appendingPathComponent(".gitignore"), atomically: true, encoding: .utf8)
        _ = try git(["add", ".gitignore"], in: a.directory, a)
        let refused = try a.sync(["sync"])
        #expect(refused.status == 1 && refused.stderr.contains("staged changes keyshelf did not make (.gitignore)"), "\(refused)")
        _ = try git(["reset", "--quiet", "--hard"], in: a.directory, a)
        let ignored = try git(["status", "--porcelain", "--ignored"], in: a.directory, a).stdout
        #expect(ignored.contains("!! local.vault") && ignored.contains("!! backups/"))
    }

    @Test func concurrentEditsMergeRecordByRecordAndPlainGitPullUsesTheDriver() throws {
        let world = try World()
        let a = try world.machine()
        try a.add("example.com", "alice", password: "one")
        try #require(try a.sync(["sync", "setup", world.remoteURL]).status == 0)
        let b = try world.machine(initialize: false)
        try #require(try b.sync(["sync", "clone", world.remoteURL]).status == 0)

        #expect(try a.sync(["add", "example.com", "alice", "--password-stdin", "--yes"], stdin: "from-a\n").status == 0)
        try a.add("shop.example", "carol", password: "carol-a")
        #expect(try b.sync(["add", "example.com", "alice", "--password-stdin", "--yes"], stdin: "from-b\n").status == 0)
        #expect(try b.sync(["sync"]).status == 0)

        let plan = try a.sync(["sync", "--dry-run"])
        #expect(plan.status == 0 && plan.stdout.contains("conflicts resolved") && plan.stdout.contains("dry run"), "\(plan)")
        #expect(try git(["status", "--porcelain"], in: a.directory, a).stdout.contains("shared.vault"), "a dry run commits nothing")

        // A plain `git commit` and `git pull` on A: the registered driver merges.
        try #require(try git(["commit", "--quiet", "-am", "local"], in: a.directory, a).status == 0)
        let pull = try git(["pull", "--no-rebase", "--quiet", "origin", "main"], in: a.directory, a)
        #expect(pull.status == 0, "\(pull)")
        #expect(try a.sync(["get", "example.com", "alice", "--yes"]).stdout == "from-b\n", "B's change is later")
        #expect(try a.sync(["get", "shop.example", "carol", "--yes"]).stdout == "carol-a\n")
        let history = try a.sync(["get", "example.com", "alice", "--history", "--yes"])
        #expect(history.lines.first == "from-b" && history.lines.contains { $0.hasSuffix("\tfrom-a") }
                && history.lines.contains { $0.hasSuffix("\tone") }, "the losing passwords are kept: \(history)")
        #expect(try a.sync(["sync"]).status == 0)
        // A rebase swaps ours and theirs for the driver: the records come out the same.
        try b.add("mail.example.net", "dan", password: "dan-b")
        _ = try git(["commit", "--quiet", "-am", "local"], in: b.directory, b)
        let rebase = try git(["pull", "--rebase", "--quiet", "origin", "main"], in: b.directory, b)
        #expect(rebase.status == 0, "\(rebase)")
        #expect(try b.sync(["get", "example.com", "alice", "--yes"]).stdout == "from-b\n")
        #expect(try b.sync(["get", "mail.example.net", "dan", "--yes"]).stdout == "dan-b\n")
        #expect(try b.sync(["sync"]).status == 0)
        #expect(try b.sync(["get", "shop.example", "carol", "--yes"]).stdout == "carol-a\n")
    }

    @Test func aTextMergeWithoutTheDriverNeverOpensAndSyncRefusesThenRepairs() throws {
        let world = try World()
        let a = try world.machine()
        try a.add("example.com", "alice", password: "one")
        try #require(try a.sync(["sync", "setup", world.remoteURL]).status == 0)
        let b = try world.machine(initialize: false)
        try #require(try b.sync(["sync", "clone", world.remoteURL]).status == 0)
        // As a plain `git clone` would be: no merge.keyshelf section in .git/config.
        _ = try git(["config", "--remove-section", "merge.keyshelf"], in: b.directory, b)

        try a.add("example.com", "dora", password: "dora-a")
        #expect(try a.sync(["sync"]).status == 0)
        try b.add("example.com", "erin", password: "erin-b")
        _ = try git(["commit", "--quiet", "-am", "local"], in: b.directory, b)
        let pull = try git(["pull", "--no-rebase", "--quiet", "origin", "main"], in: b.directory, b)
        #expect(pull.status != 0, "without the driver git cannot merge the sealed file: \(pull)")
        // git 2.39 keeps ours for a binary file; what a line-based text merge (GNU diff3, as
        // git's text fallback) makes of the three versions never opens: it is refused as damaged.
        for stage in 1...3 {
            let blob = try git(["show", ":\(stage):shared.vault"], in: b.directory, b)
            try blob.stdoutData.write(to: b.root.appendingPathComponent("stage\(stage)"))
        }
        let merged = try Program.run("/usr/bin/diff3", ["-m", "-a", b.root.appendingPathComponent("stage2").path,
                              b.root.appendingPathComponent("stage1").path, b.root.appendingPathComponent("stage3").path], environment: b.environment)
        #expect(merged.stdoutData.range(of: Data("<<<<<<<".utf8)) != nil)
        try merged.stdoutData.write(to: b.directory.appendingPathComponent("shared.vault"))
        let opened = try b.sync(["list", "--no-agent"])
        #expect(opened.status == 7, "\(opened)")
        let refused = try b.sync(["sync"])
        #expect(refused.status == 1 && refused.stderr.contains("git merge --abort"), "\(refused)")
        _ = try git(["merge", "--abort"], in: b.directory, b)
        let synced = try b.sync(["sync"])
        #expect(synced.status == 0, "\(synced)")
        #expect(try git(["config", "merge.keyshelf.driver"], in: b.directory, b).stdout.contains("__merge-driver"))
        #expect(try b.sync(["get", "example.com", "dora", "--yes"]).stdout == "dora-a\n")
        #expect(try b.sync(["get", "example.com", "erin", "--yes"]).stdout == "erin-b\n")
        #expect(!FileManager.default.fileExists(atPath: b.directory.appendingPathComponent(".git/MERGE_HEAD").path))
    }

    @Test func aTamperedOrRolledBackRemoteIsRefused() throws {
        let world = try World()
        let a = try world.machine()
        try a.add("example.com", "alice", password: "one")
        try #require(try a.sync(["sync", "setup", world.remoteURL]).status == 0)
        let first = try git(["rev-parse", "HEAD"], in: a.directory, a).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let b = try world.machine(initialize: false)
        try #require(try b.sync(["sync", "clone", world.remoteURL]).status == 0)
        #expect(try a.sync(["add", "example.com", "alice", "--password-stdin", "--yes"], stdin: "two\n").status == 0)
        #expect(try a.sync(["sync"]).status == 0)
        #expect(try b.sync(["sync"]).status == 0)

        // Rollback: the first commit pushed again over the remote's branch.
        _ = try git(["push", "--quiet", "--force", world.remoteURL, "\(first):refs/heads/main"], in: a.directory, a)
        let before = try b.snapshot()
        let refused = try b.sync(["sync"])
        #expect(refused.status == 1 && refused.stderr.contains("rollback"), "\(refused)")
        #expect(try b.snapshot() == before)
        #expect(try b.sync(["get", "example.com", "alice", "--yes"]).stdout == "two\n")

        // Tampering: one payload byte of the remote's file changed.
        let tamperer = try world.machine(initialize: false)
        _ = try git(["clone", "--quiet", world.remoteURL, tamperer.directory.path], in: tamperer.root, tamperer)
        let file = tamperer.directory.appendingPathComponent("shared.vault")
        var bytes = try Data(contentsOf: file)
        bytes[bytes.count - 20] ^= 0x01
        try bytes.write(to: file)
        _ = try git(["commit", "--quiet", "-am", "tampered"], in: tamperer.directory, tamperer)
        _ = try git(["push", "--quiet", "--force", "origin", "HEAD:main"], in: tamperer.directory, tamperer)
        let damaged = try b.sync(["sync"])
        #expect(damaged.status == 7, "\(damaged)")
        #expect(try b.snapshot() == before)
    }

    @Test func sigkillDuringSyncLeavesVaultAndRepositoryUsable() throws {
        let world = try World()
        let a = try world.machine()
        try a.add("example.com", "alice", password: "one")
        try #require(try a.sync(["sync", "setup", world.remoteURL]).status == 0)
        let b = try world.machine(initialize: false)
        try #require(try b.sync(["sync", "clone", world.remoteURL]).status == 0)
        var generator = SystemRandomNumberGenerator()
        for round in 0..<8 {
            try a.add("example.com", "a\(round)", password: "a-\(round)")
            try b.add("shop.example", "b\(round)", password: "b-\(round)")
            #expect(try b.sync(["sync"]).status == 0)
            let process = Process()
            process.executableURL = Keyshelf.binary
            process.arguments = ["sync"]
            var env = a.environment
            env["GIT_CONFIG_NOSYSTEM"] = "1"
            process.environment = env
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            usleep(UInt32.random(in: 0...150_000, using: &generator))
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            // git children of the killed sync finish on their own; wait for their index lock to go.
            let lock = a.directory.appendingPathComponent(".git/index.lock").path
            for _ in 0..<200 where FileManager.default.fileExists(atPath: lock) { usleep(20_000) }
            #expect(try a.sync(["list"]).status == 0, "the vault opens after a kill in round \(round)")
            let again = try a.sync(["sync"])
            #expect(again.status == 0, "round \(round): \(again)")
        }
        #expect(try b.sync(["sync"]).status == 0)
        let listA = try a.sync(["list", "--json"]).stdout, listB = try b.sync(["list", "--json"]).stdout
        #expect(listA == listB)
        #expect(!FileManager.default.fileExists(atPath: a.directory.appendingPathComponent(".git/MERGE_HEAD").path))
    }

    /// Edits on two machines, merged by `git pull` through the driver as
    /// OURS plus an appendix (docs/vault-format.md, "Appendices"): after
    /// both sync, both hold the very same `shared.vault` blob, the merge
    /// grew the file by a small appendix, and syncing again commits nothing.
    @Test func aMergeWrittenAsOursPlusAnAppendixConvergesOnBothMachines() throws {
        let world = try World()
        let a = try world.machine()
        for n in 0..<20 { try a.add("site\(n).example", "user", password: "pw-\(n)") }
        try #require(try a.sync(["sync", "setup", world.remoteURL]).status == 0)
        let b = try world.machine(initialize: false)
        try #require(try b.sync(["sync", "clone", world.remoteURL]).status == 0)

        #expect(try a.sync(["add", "site3.example", "user", "--password-stdin", "--yes"], stdin: "edited-on-a\n").status == 0)
        #expect(try b.sync(["add", "site7.example", "user", "--password-stdin", "--yes"], stdin: "edited-on-b\n").status == 0)
        try b.add("new.example", "bob", password: "bob-b")
        #expect(try b.sync(["sync"]).status == 0)
        try #require(try git(["commit", "--quiet", "-am", "local"], in: a.directory, a).status == 0)
        let ours = try Data(contentsOf: a.directory.appendingPathComponent("shared.vault"))
        let pull = try git(["pull", "--no-rebase", "--quiet", "origin", "main"], in: a.directory, a)
        try #require(pull.status == 0, "\(pull)")
        let merged = try Data(contentsOf: a.directory.appendingPathComponent("shared.vault"))
        #expect(merged.count > ours.count && merged.count - ours.count < 2048 && merged.prefix(ours.count).dropFirst(144) == ours.dropFirst(144),
                "the merge is OURS and an appendix (\(ours.count) → \(merged.count) bytes)")
        #expect(try a.sync(["sync"]).status == 0)
        #expect(try b.sync(["sync"]).status == 0)

        let files = try [a, b].map { try Data(contentsOf: $0.directory.appendingPathComponent("shared.vault")) }
        #expect(files[0] == files[1], "both machines hold one blob")
        let heads = try [a, b].map { try git(["rev-parse", "HEAD"], in: $0.directory, $0).stdout }
        #expect(heads[0] == heads[1])
        for m in [a, b] {
            #expect(try m.sync(["get", "site3.example", "user", "--yes"]).stdout == "edited-on-a\n")
            #expect(try m.sync(["get", "site7.example", "user", "--yes"]).stdout == "edited-on-b\n")
            #expect(try m.sync(["get", "new.example", "bob", "--yes"]).stdout == "bob-b\n")
        }
        let commits = try git(["rev-list", "--count", "main"], in: world.remote, a).stdout
        for m in [a, b, a] { #expect(try m.sync(["sync"]).status == 0) }
        #expect(try git(["rev-list", "--count", "main"], in: world.remote, a).stdout == commits, "syncing again commits nothing")
        #expect(try Data(contentsOf: a.directory.appendingPathComponent("shared.vault")) == files[0])
    }

    @Test func threeMachinesThroughTheBinaryConverge() throws {
        let world = try World()
        let first = try world.machine()
        try first.add("example.com", "seed", password: "seed")
        try #require(try first.sync(["sync", "setup", world.remoteURL]).status == 0)
        var machines = [first]
        for _ in 0..<2 {
            let m = try world.machine(initialize: false)
            try #require(try m.sync(["sync", "clone", world.remoteURL]).status == 0)
            machines.append(m)
        }
        var state: UInt64 = 14
        func next(_ n: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(n))
        }
        let accounts = ["alice", "bob", "carol"]
        for round in 0..<24 {
            let m = machines[next(3)]
            let account = accounts[next(3)]
            switch next(4) {
            case 0, 1:
                _ = try m.sync(["add", "example.com", account, "--password-stdin", "--yes"], stdin: "pw-\(round)\n")
            case 2:
                _ = try m.sync(["rm", "example.com", account, "--yes"])
            default:
                let result = try m.sync(["sync"])
                #expect(result.status == 0, "round \(round): \(result)")
            }
        }
        for _ in 0..<2 { for m in machines { #expect(try m.sync(["sync"]).status == 0) } }
        let lists = try machines.map { try $0.sync(["list", "--json"]).stdout }
        #expect(lists[0] == lists[1] && lists[1] == lists[2], "\(lists)")
        let passwords = try machines.map { m in try accounts.map { try m.sync(["get", "example.com", $0, "--yes"]).stdout } }
        #expect(passwords[0] == passwords[1] && passwords[1] == passwords[2])
    }

    @Test func aPushRejectedBecauseAnotherMachinePushedIsRetried() throws {
        let world = try World()
        let a = try world.machine()
        try a.add("example.com", "alice", password: "one")
        try #require(try a.sync(["sync", "setup", world.remoteURL]).status == 0)
        let b = try world.machine(initialize: false)
        try #require(try b.sync(["sync", "clone", world.remoteURL]).status == 0)
        // B's commit reaches the remote's main while A's push is being received, as a
        // concurrent push would: the remote's hook moves main once, so A's push is rejected.
        try b.add("example.com", "zed", password: "zed-b")
        _ = try git(["commit", "--quiet", "-am", "racer"], in: b.directory, b)
        let racer = try git(["rev-parse", "HEAD"], in: b.directory, b).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        _ = try git(["push", "--quiet", world.remoteURL, "HEAD:refs/heads/racer"], in: b.directory, b)
        let marker = world.root.appendingPathComponent("raced").path
        let hook = world.remote.appendingPathComponent("hooks/pre-receive")
        try "#!/bin/sh\nif [ ! -e '\(marker)' ]; then touch '\(marker)'; unset GIT_QUARANTINE_PATH; git update-ref refs/heads/main \(racer); fi\ncat >/dev/null\n"
            .write(to: hook, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: hook.path)
        try a.add("example.com", "quinn", password: "quinn-a")
        let synced = try a.sync(["sync"])
        #expect(synced.status == 0 && synced.stdout.contains("pushed (after 2 attempts)"), "\(synced)")
        #expect(try a.sync(["get", "example.com", "zed", "--yes"]).stdout == "zed-b\n")
        #expect(try b.sync(["sync"]).status == 0)
        #expect(try b.sync(["get", "example.com", "quinn", "--yes"]).stdout == "quinn-a\n")
    }

    @Test func theAgentLendsItsKeysToSyncAndSeesTheMergedRecords() throws {
        let world = try World()
        let a = try world.machine()
        try a.add("example.com", "alice", password: "one")
        try #require(try a.sync(["sync", "setup", world.remoteURL]).status == 0)
        let b = try world.machine(initialize: false)
        try #require(try b.sync(["sync", "clone", world.remoteURL]).status == 0)
        // Short: the agent's socket path must fit a sockaddr_un.
        let runtime = URL(fileURLWithPath: "/tmp/ks-sync-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: runtime, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        defer { try? FileManager.default.removeItem(at: runtime) }
        func viaAgent(_ arguments: [String], password: Bool = false) throws -> Run {
            try a.run(arguments) { env in
                env["GIT_CONFIG_NOSYSTEM"] = "1"
                env["XDG_RUNTIME_DIR"] = runtime.path
                if !password { env["KEYSHELF_PASSWORD_FILE"] = nil }
            }
        }
        let unlocked = try viaAgent(["unlock", "--idle", "60"], password: true)
        try #require(unlocked.status == 0, "\(unlocked)")
        defer { _ = try? viaAgent(["lock"]) }
        #expect(try viaAgent(["get", "example.com", "alice", "--yes"]).stdout == "one\n")
        #expect(try b.sync(["add", "example.com", "alice", "--password-stdin", "--yes"], stdin: "via-b\n").status == 0)
        #expect(try b.sync(["sync"]).status == 0)
        let synced = try viaAgent(["sync"])
        #expect(synced.status == 0, "no master password needed with the agent unlocked: \(synced)")
        #expect(try viaAgent(["get", "example.com", "alice", "--yes"]).stdout == "via-b\n", "the agent answers with the merged record")
    }

    func git(_ arguments: [String], in directory: URL, _ vault: TestVault) throws -> Run {
        var env = vault.environment
        env["GIT_CONFIG_NOSYSTEM"] = "1"
        return try Program.run("/usr/bin/git", arguments, environment: env, currentDirectory: directory)
    }
}

extension TestVault {
    /// `run` with git's system configuration left out (the test's HOME has its own).
    func sync(_ arguments: [String], stdin: String? = nil) throws -> Run {
        try run(arguments, stdin: stdin) { $0["GIT_CONFIG_NOSYSTEM"] = "1" }
    }
}
