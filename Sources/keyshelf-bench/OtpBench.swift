import Foundation
import KeyshelfCredentials
import KeyshelfCrypto
import KeyshelfVault

// Issue 16's figures through the release binary and an unlocked agent
// (moderate KDF, so no Argon2id per command): `otp SERVER ACCOUNT` (a local
// TOTP item; `otp` opens the vault with the agent's keys, docs/otp.md) next
// to `get` and `--version`, and `audit` of 10 000 credentials without and
// with `--hibp FILE` (a generated sorted list of 10 million lines, 459 MB).
// Build first: swift build -c release --static-swift-stdlib --product keyshelf
func runOtpBenchmarks() throws {
    let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("keyshelf")
    guard FileManager.default.isExecutableFile(atPath: binary.path) else {
        print("no release keyshelf next to keyshelf-bench; run: swift build -c release --static-swift-stdlib --product keyshelf")
        return
    }
    let count = 10_000
    let bench = try OtpBench(binary: binary, count: count)
    defer { bench.remove() }
    let runs = 11
    let version = try medianSeconds(runs) { try spawnAndWait(binary.path, ["--version"], environment: [:]) }
    let probe = (server: "site\(count / 2).example", account: "user\(count / 2)@example.com")
    let otp = try medianSeconds(runs) { try bench.keyshelf(["otp", probe.server, probe.account]) }
    let otpJSON = try medianSeconds(runs) { try bench.keyshelf(["otp", probe.server, probe.account, "--json"]) }
    let get = try medianSeconds(runs) { try bench.keyshelf(["get", probe.server, probe.account]) }
    print("median wall time of \(runs) runs, \(count) credentials (every 10th with a TOTP secret), agent unlocked")
    for (name, time) in [("--version", version), ("otp", otp), ("otp --json", otpJSON), ("get", get)] {
        print("  " + name.padding(toLength: 12, withPad: " ", startingAt: 0) + milliseconds(time) + "   " + milliseconds(time - version) + " over --version")
    }
    // audit exits 8 when it finds something (the generated passwords may be called weak).
    let audit = try medianSeconds(5) { try bench.keyshelf(["audit", "--json"], accepting: [0, 8]) }
    let list = bench.root.appendingPathComponent("pwned.txt").path
    let bytes = try writeSortedList(lines: 10_000_000, to: list)
    let withList = try medianSeconds(5) { try bench.keyshelf(["audit", "--json", "--hibp", list], accepting: [0, 8]) }
    print(String(format: "  audit, no list %@; with --hibp of 10M lines (%.0f MB, in the page cache) %@ (median of 5)",
                 milliseconds(audit) as NSString, Double(bytes) / 1e6, milliseconds(withList) as NSString))
}

/// A moderate-KDF vault of `count` local credentials (every 10th with a TOTP
/// secret) and an agent unlocked on it, in a temporary directory.
private final class OtpBench {
    let binary: URL
    let root: URL
    let environment: [String: String]

    init(binary: URL, count: Int) throws {
        self.binary = binary
        root = FileManager.default.temporaryDirectory.appendingPathComponent("keyshelf-otpbench-\(UUID().uuidString.prefix(8))")
        let vault = root.appendingPathComponent("vault")
        let run = root.appendingPathComponent("run")
        try FileManager.default.createDirectory(at: run, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        try Data("bench master password\n".utf8).write(to: root.appendingPathComponent("master"))
        let session = try VaultDirectory(url: vault).create(password: Secret(utf8: "bench master password"), limits: .moderate)
        // Distinct generated passwords in one secure buffer (one sodium_malloc each would exhaust the locked-memory limit).
        let passwords = (0..<count).map { _ in PasswordGenerator.generate().withUnsafeBytes { Array($0) } }
        let storage = SecureBytes(copying: passwords.joined())
        let secret = OneTimePassword.base32Encode(Secret(utf8: "12345678901234567890"))
        var offset = 0
        try session.modify { contents in
            for index in 0..<count {
                let range = offset..<(offset + passwords[index].count)
                offset = range.upperBound
                var item = Item(account: "user\(index)@example.com", server: "site\(index).example", password: Secret(storage: storage, range: range))
                if index % 10 == 0 { item.otpauth = "otpauth://totp/Site\(index):user\(index)?secret=\(secret)&issuer=Site\(index)" }
                contents.local.append(item)
            }
        }
        session.lock()
        environment = ["KEYSHELF_VAULT": vault.path, "XDG_RUNTIME_DIR": run.path, "HOME": root.path, "PATH": "/usr/bin:/bin"]
        try spawnAndWait(binary.path, ["unlock"], environment: environment.merging(["KEYSHELF_PASSWORD_FILE": root.appendingPathComponent("master").path]) { $1 })
    }

    func keyshelf(_ arguments: [String], accepting: Set<Int32> = [0]) throws {
        try spawnAndWait(binary.path, arguments, environment: environment, accepting: accepting)
    }

    func remove() {
        _ = try? spawnAndWait(binary.path, ["lock"], environment: environment)
        try? FileManager.default.removeItem(at: root)
    }
}
