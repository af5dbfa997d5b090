import Foundation
import KeyshelfCredentials
import KeyshelfCrypto
import KeyshelfVault

// `keyshelf-bench sync`: the merge of 10 000 shared credentials with 100
// changes on each side (in process), a whole `keyshelf sync` of that through
// git with a bare file:// remote (release binary beside this one), and the
// remote's growth per single-record sync over 100 of them (after `git gc`).
// Each `keyshelf sync` is reported as wall time, then the CPU time of the
// keyshelf process itself and that of the git commands it ran (its waited-for
// children: /proc/PID/stat utime + stime and cutime + cstime).
// KEYSHELF_BENCH_COUNTS=10000 (the default) the sizes; KEYSHELF_BENCH_CHANGES=100
// (the default) the changes on each side; KEYSHELF_BENCH_SINGLE_SYNCS=100 (the
// default) the single-record syncs for the growth (0 skips it). KEYSHELF_BENCH_HOLD=1
// prints the directory of the two vaults and their remote before the timed
// syncs and waits for a line on standard input (to copy it for profiling).
// docs/benchmarks.md.
func runSyncBenchmarks() throws {
    let environment = ProcessInfo.processInfo.environment
    let counts = environment["KEYSHELF_BENCH_COUNTS"]?.split(separator: ",").compactMap { Int($0) } ?? [10_000]
    let changes = environment["KEYSHELF_BENCH_CHANGES"].flatMap { Int($0) } ?? 100
    let singleSyncs = environment["KEYSHELF_BENCH_SINGLE_SYNCS"].flatMap { Int($0) } ?? 100
    for count in counts { try runSyncBenchmark(count: count, changes: changes, singleSyncs: singleSyncs) }
}

/// The in-process merge, then the runs through git, at `count` shared credentials.
private func runSyncBenchmark(count: Int, changes: Int, singleSyncs: Int) throws {
    let now = Date()
    let passwords = sharedSecrets((0..<count).map { "pw-\($0)" })
    let base = (0..<count).map { i -> Item in
        var item = Item(account: "user\(i)@example.com", server: "site\(i % 997).example", label: "L\(i)",
                        creationDate: now, synchronizable: true, password: passwords[i])
        item.changeStamp = ChangeStamp.next(after: nil, now: now, issuedFor: now)
        return item
    }
    func edited(_ items: [Item], offset: Int, at date: Date) -> [Item] {
        var items = items
        for k in 0..<changes {
            let i = (k * 97 + offset) % count
            items[i].replacePassword(with: Secret(utf8: "changed-\(offset)-\(k)"), at: date)
            items[i].modificationDate = date
        }
        ChangeStamper.stamp(&items, now: date)
        return items
    }
    let ours = edited(base, offset: 0, at: now.addingTimeInterval(10))
    let theirs = edited(base, offset: 50, at: now.addingTimeInterval(20))
    let merge = medianSeconds(9) { _ = ItemMerge.merge(ours: ours, theirs: theirs) }
    let plan = medianSeconds(5) { _ = SyncPlan(ours: ours, theirs: theirs, base: base) }
    print("merge of \(count) credentials, \(changes) changes each side: \(milliseconds(merge)); with the per-record plan: \(milliseconds(plan))")
    try runGitSyncBenchmark(count: count, changes: changes, singleSyncs: singleSyncs)
}

/// Two vault directories synced through a bare repository by the release binary.
private func runGitSyncBenchmark(count: Int, changes: Int, singleSyncs: Int) throws {
    let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("keyshelf")
    guard FileManager.default.isExecutableFile(atPath: binary.path) else { throw BenchError("build the release keyshelf first") }
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("keyshelf-bench-sync-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: root) }
    try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
    let passwordFile = root.appendingPathComponent("pw")
    try Data("bench master password\n".utf8).write(to: passwordFile)
    try "[user]\n\tname = Bench\n\temail = bench@example.invalid\n".write(to: root.appendingPathComponent(".gitconfig"), atomically: true, encoding: .utf8)
    let env = ["PATH": "/usr/bin:/bin", "HOME": root.path, "GIT_CONFIG_NOSYSTEM": "1", "KEYSHELF_TEST_KDF": "minimum",
               "KEYSHELF_PASSWORD_FILE": passwordFile.path]
    let remote = root.appendingPathComponent("remote.git")
    try spawnAndWait("/usr/bin/git", ["init", "--quiet", "--bare", "--initial-branch=main", remote.path], environment: env)
    let a = root.appendingPathComponent("a"), b = root.appendingPathComponent("b")
    let session = try VaultDirectory(url: a).create(password: Secret(utf8: "bench master password"), limits: .minimum)
    let passwords = sharedSecrets((0..<count).map { "pw-\($0)" })
    try session.modify { contents in
        contents.shared = (0..<count).map { Item(account: "user\($0)@example.com", server: "site\($0 % 997).example",
                                                  synchronizable: true, password: passwords[$0]) }
    }
    session.lock()
    try spawnAndWait(binary.path, ["sync", "setup", "file://" + remote.path, "--vault", a.path], environment: env)
    try spawnAndWait(binary.path, ["sync", "clone", "file://" + remote.path, "--vault", b.path], environment: env)
    func edit(_ directory: URL, _ n: Int, tag: String) throws {
        let s = try VaultDirectory(url: directory).unlock(password: Secret(utf8: "bench master password"))
        defer { s.lock() }
        try s.modify { contents in
            for k in 0..<n {
                let i = (k * 97 + tag.count * 13) % count
                contents.shared[i].replacePassword(with: Secret(utf8: "\(tag)-\(k)"), at: Date())
                contents.shared[i].modificationDate = Date()
            }
        }
    }
    try edit(a, changes, tag: "a")
    try edit(b, changes, tag: "bb")
    if ProcessInfo.processInfo.environment["KEYSHELF_BENCH_HOLD"] == "1" {
        print("# hold: \(root.path)")
        fflush(nil)
        _ = readLine()
    }
    let syncB = try spawnAndMeasure(binary.path, ["sync", "--vault", b.path], environment: env)
    let syncA = try spawnAndMeasure(binary.path, ["sync", "--vault", a.path], environment: env)
    print("keyshelf sync of \(count) credentials, \(changes) changes each side (wall; CPU of keyshelf itself, of its git commands): "
          + "pushes only \(syncB); fetch, merge, commit, push \(syncA); load \(loadAverage())")
    guard singleSyncs > 0 else { return }
    try spawnAndWait("/usr/bin/git", ["-C", remote.path, "gc", "--quiet"], environment: env)
    let before = try directoryBytes(remote)
    let syncs = singleSyncs
    for n in 0..<syncs {
        try edit(a, 1, tag: "single\(n)")
        try spawnAndWait(binary.path, ["sync", "--vault", a.path], environment: env)
    }
    try spawnAndWait("/usr/bin/git", ["-C", remote.path, "gc", "--quiet"], environment: env)
    let after = try directoryBytes(remote)
    let perSync = Double(after - before) / Double(syncs) / 1024
    print("remote after git gc: \(before / 1024) KiB, then \(after / 1024) KiB after \(syncs) single-record syncs: "
          + String(format: "%.1f KiB per sync", perSync))
}

private func directoryBytes(_ url: URL) throws -> Int {
    var total = 0
    let files = FileManager.default.enumerator(at: url, includingPropertiesForKeys: [.fileSizeKey])
    while let file = files?.nextObject() as? URL {
        total += (try? file.resourceValues(forKeys: [.fileSizeKey]).fileSize) ?? 0
    }
    return total
}
