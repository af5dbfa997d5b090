import Foundation
import KeyshelfCrypto
import KeyshelfVault

// End-to-end cost of the CLI (issue 3 item 9): `get`, `list`, `list SERVER`,
// `search`, `add` and `rm` run the release `keyshelf` binary against vaults
// of 1k, 10k and 100k credentials, with the interactive and the minimum
// Argon2id limits, next to `keyshelf --version` (process start alone).
// "outside Argon2id" subtracts the measured time of one key derivation at
// the vault's limits.
// Build first: swift build -c release --static-swift-stdlib --product keyshelf
func runCLIBenchmarks() throws {
    let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("keyshelf")
    guard FileManager.default.isExecutableFile(atPath: binary.path) else {
        print("no release keyshelf next to keyshelf-bench; run: swift build -c release --static-swift-stdlib --product keyshelf")
        return
    }
    let runs = 9
    let version = try medianSeconds(runs) { try spawnAndWait(binary.path, ["--version"], environment: [:]) }
    print("keyshelf --version: \(milliseconds(version)) (median of \(runs) runs)")
    for (kdfName, limits) in [("interactive", PasswordHashLimits.interactive), ("minimum", PasswordHashLimits.minimum)] {
        let argon = try medianSeconds(5) {
            _ = try PasswordHash.deriveKey(password: Secret(utf8: "bench"), salt: Random.bytes(PasswordHash.saltByteCount), limits: limits)
        }
        print("\nArgon2id \(kdfName) (\(limits)): \(milliseconds(argon)) per derivation")
        print("credentials  op           median      minus --version  minus --version and Argon2id")
        for count in [1_000, 10_000, 100_000] {
            let bench = try CLIBench(binary: binary, limits: limits, count: count)
            defer { bench.remove() }
            let repeats = count >= 100_000 ? 5 : runs
            var added = 0
            var removed = 0
            let results: [(String, Double)] = [
                ("get", try medianSeconds(repeats) { try bench.keyshelf(["get", bench.probeServer, bench.probeAccount]) }),
                ("list", try medianSeconds(repeats) { try bench.keyshelf(["list"]) }),
                ("list SERVER", try medianSeconds(repeats) { try bench.keyshelf(["list", bench.probeServer]) }),
                ("search", try medianSeconds(repeats) { try bench.keyshelf(["search", bench.probeAccount]) }),
                ("add", try medianSeconds(repeats) {
                    added += 1
                    try bench.keyshelf(["add", "bench-add.example", "user\(added)", "--password-stdin"], stdin: "pw-\(added)\n")
                }),
                ("rm", try medianSeconds(repeats) {
                    removed += 1
                    try bench.keyshelf(["rm", "bench-add.example", "user\(removed)", "--yes"])
                }),
            ]
            for (op, time) in results {
                let overVersion = time - version
                print(String(format: "%11d  %-11@  %9@  %15@  %12@", count, op as NSString,
                             milliseconds(time) as NSString, milliseconds(overVersion) as NSString,
                             milliseconds(overVersion - argon) as NSString))
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
        try spawnAndWait(binary.path, arguments, environment: environment, stdin: stdin ?? "")
    }

    func remove() { try? FileManager.default.removeItem(at: root) }
}
