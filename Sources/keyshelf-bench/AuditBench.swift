import Foundation
import KeyshelfCredentials
import KeyshelfCrypto
import KeyshelfVault

/// `keyshelf audit`'s engine on 10 000 credentials (CPU time): without a
/// Have I Been Pwned list, and against generated sorted lists of growing
/// size, to show that the lookup is logarithmic in the file size.
func runAuditBenchmarks() throws {
    let count = 10_000
    let shelf = try Keyshelf(vault: MemoryVault(items: VaultContents(shared: auditItems(count))))
    let plain = try measure { _ = try shelf.audit(with: AuditEngine()) }
    print(String(format: "%6d credentials, no list: %.1f ms", count, plain))
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("keyshelf-audit-bench-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let digests = shelf.auditSubjects().map { $0.password!.withUnsafeBytes(SHA1.digest) }
    for lines in [100_000, 1_000_000, 10_000_000] {
        let path = directory.appendingPathComponent("pwned-\(lines).txt").path
        let bytes = try writeSortedList(lines: lines, to: path)
        var reads = 0
        let withList = try measure {
            let list = try PwnedPasswordsFile(path: path)
            _ = try shelf.audit(with: AuditEngine(pwned: list))
            reads = list.readCount
        }
        // The lookups alone, on a list opened afresh (its probe cache empty).
        let lookups = try measure {
            _ = try PwnedPasswordsFile(path: path).breachCounts(of: digests)
        }
        print(String(format: "%6d credentials, list of %8d lines (%.0f MB): audit %.1f ms, lookups alone %.1f ms, %d reads (%.1f per credential)",
                     count, lines, Double(bytes) / 1e6, withList, lookups, reads, Double(reads) / Double(count)))
        try FileManager.default.removeItem(atPath: path)
    }
}

/// `count` items with distinct generated passwords in one secure buffer (as a decoded vault keeps them).
private func auditItems(_ count: Int) -> [Item] {
    let passwords = (0..<count).map { _ in PasswordGenerator.generate().withUnsafeBytes { Array($0) } }
    let storage = SecureBytes(copying: passwords.joined())
    var offset = 0
    return (0..<count).map { n in
        let range = offset..<(offset + passwords[n].count)
        offset = range.upperBound
        return Item(account: "user\(n)@example.com", server: "site\(n / 3).example", synchronizable: true,
                    password: Secret(storage: storage, range: range))
    }
}

/// A list of `lines` `HASH:COUNT\r\n` lines whose hashes ascend evenly over the
/// SHA-1 range (sorted by construction); returns its size in bytes.
func writeSortedList(lines: Int, to path: String) throws -> Int {
    // A failure shows as FileHandle's error on the next line.
    _ = FileManager.default.createFile(atPath: path, contents: nil)
    let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
    defer { try? handle.close() }
    let step = UInt64.max / UInt64(lines)
    var buffer: [UInt8] = []
    var total = 0
    for i in 0..<lines {
        let top = UInt64(i) &* step
        buffer.append(contentsOf: Array(String(format: "%016llX%024llX:%d\r\n", top, UInt64(i) &* 2_654_435_761, i % 1000 + 1).utf8))
        if buffer.count > 1 << 20 {
            try handle.write(contentsOf: buffer)
            total += buffer.count
            buffer.removeAll(keepingCapacity: true)
        }
    }
    try handle.write(contentsOf: buffer)
    return total + buffer.count
}
