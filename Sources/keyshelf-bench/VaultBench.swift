import Foundation
import KeyshelfCrypto
import KeyshelfVault
#if canImport(Glibc)
import Glibc
#endif

/// Vault benchmarks (issue 2, item 9): open+decode and encode+save at 1k, 10k
/// and 100k credentials with Argon2id at its minimum (so it is excluded in
/// practice; its cost is printed), peak RSS, and Argon2id time per level.
/// Targets: 10k open ≤ 25 ms, save ≤ 50 ms; 100k open ≤ 250 ms; peak RSS at 100k ≤ 120 MB.
func runVaultBenchmarks() throws {
    let password = Secret(utf8: "benchmark master password")
    if let directory = ProcessInfo.processInfo.environment[openChildVariable] {
        try openEditSave(directory: directory, password: password)
        exit(0)
    }
    let argonMinimum = try median(of: 5) {
        _ = try PasswordHash.deriveKey(password: password, salt: Random.bytes(PasswordHash.saltByteCount), limits: .minimum)
    }
    print("Argon2id at minimum limits (included below): \(ms(argonMinimum))")
    for count in [1_000, 10_000, 100_000] {
        try benchmarkVault(count: count, password: password)
    }
    print("peak RSS of this benchmark process (it also built the 100k items and saved them): \(peakRSSMegabytes()) MB")

    for (name, limits, runs) in [("interactive", PasswordHashLimits.interactive, 3), ("moderate", .moderate, 3), ("sensitive", .sensitive, 1)] {
        let t = try median(of: runs) {
            _ = try PasswordHash.deriveKey(password: password, salt: Random.bytes(PasswordHash.saltByteCount), limits: limits)
        }
        print("Argon2id \(name) (\(limits)): \(ms(t)) (\(runs == 1 ? "one run" : "median of \(runs)"))")
    }
}

private func benchmarkVault(count: Int, password: Secret) throws {
    let url = URL(fileURLWithPath: NSTemporaryDirectory(), isDirectory: true)
        .appendingPathComponent("keyshelf-bench-\(UUID().uuidString)", isDirectory: true)
    defer { try? FileManager.default.removeItem(at: url) }
    let directory = VaultDirectory(url: url)
    let session = try directory.create(password: password, limits: .minimum)
    let items = sampleCredentials(count)

    let firstSave = try measure { try session.modify { $0.shared = items } }
    var edit = 0
    let save = try median(of: 5) {
        edit += 1
        try session.modify { $0.shared[edit * 7 % count].label = "edited \(edit)" }
    }
    // A new item after the last: an appendix (docs/vault-format.md), the whole store neither encoded nor sealed.
    var added = 0
    let add = try median(of: 9) {
        added += 1
        _ = try session.add(to: .shared) { _ in Item(account: "added\(added)@example.com", server: "added.example", synchronizable: true, password: Secret(utf8: "pw-\(added)")) }
    }
    let open = try median(of: 5) {
        let contents = try directory.unlock(password: password).contents()
        precondition(contents.shared.count == count + added)
    }
    if count == 100_000 { try runOpenChild(directory: url.path) }
    let bytes = (try? FileManager.default.attributesOfItem(atPath: url.appendingPathComponent("shared.vault").path)[.size] as? NSNumber)?.intValue ?? 0
    print("\(count) credentials (\(bytes / 1024) KiB file): open+decode \(ms(open)), edit one + encode+save \(ms(save)), add one (appendix) \(ms(add)), first save \(ms(firstSave))")
}

private let openChildVariable = "KEYSHELF_BENCH_VAULT_OPEN"

/// Peak resident set size of this process so far, MB: `VmHWM` of
/// /proc/self/status, which starts afresh at exec (`getrusage`'s `ru_maxrss`
/// would carry the parent's peak into a spawned child).
private func peakRSSMegabytes() -> Int {
    let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
    for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
        return (Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0) / 1024
    }
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return usage.ru_maxrss / 1024
}

/// Measures peak RSS in a fresh process that does what a user's session does
/// with a big vault: open and decode, edit one item, save.
private func runOpenChild(directory: String) throws {
    let child = Process()
    child.executableURL = URL(fileURLWithPath: "/proc/self/exe")
    child.arguments = ["vault"]
    child.environment = ProcessInfo.processInfo.environment.merging([openChildVariable: directory]) { $1 }
    let output = Pipe()
    child.standardOutput = output
    try child.run()
    let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    child.waitUntilExit()
    for line in text.split(separator: "\n") where !line.hasPrefix("==") { print(line) }
}

private func openEditSave(directory: String, password: Secret) throws {
    let session = try VaultDirectory(url: URL(fileURLWithPath: directory)).unlock(password: password)
    let count = try session.contents().shared.count
    try session.modify { $0.shared[0].label = "edited in child" }
    print("peak RSS of a fresh process that opens \(count) credentials, edits one and saves: \(peakRSSMegabytes()) MB")
}

/// `count` internet passwords whose passwords are slices of one secure buffer, as after a decode.
private func sampleCredentials(_ count: Int) -> [Item] {
    let passwordByteCount = 15
    let buffer = Random.secureBytes(count * passwordByteCount)
    let now = Date()
    return (0..<count).map { i in
        Item(
            account: "user\(i)@mail.example", server: "site\(i % (count / 4 + 1)).example.com",
            label: "Site \(i)", comment: i % 5 == 0 ? "recovery codes in the safe, drawer \(i)" : "",
            creationDate: now, synchronizable: true,
            password: Secret(storage: buffer, range: i * passwordByteCount..<(i + 1) * passwordByteCount))
    }
}

private func measure(_ body: () throws -> Void) rethrows -> Duration {
    let clock = ContinuousClock()
    let start = clock.now
    try body()
    return clock.now - start
}

private func median(of runs: Int, _ body: () throws -> Void) rethrows -> Duration {
    var times = [Duration]()
    for _ in 0..<runs { times.append(try measure(body)) }
    return times.sorted()[runs / 2]
}

private func ms(_ d: Duration) -> String {
    let c = d.components
    return String(format: "%.2f ms", Double(c.seconds) * 1000 + Double(c.attoseconds) / 1e15)
}
