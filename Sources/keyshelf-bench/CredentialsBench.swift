import Foundation
import KeyshelfCredentials
import KeyshelfCrypto
import KeyshelfVault

/// The credentials facade over an in-memory vault (no Argon2id, no disk):
/// listing build, first search (search keys), per-keystroke search, listing,
/// get, add, at 1k / 10k / 100k.
func runCredentialsBenchmarks() throws {
    for count in [1_000, 10_000, 100_000] {
        let vault = MemoryVault(items: VaultContents(local: benchItems(count / 2, synchronizable: false),
                                                     shared: benchItems(count - count / 2, synchronizable: true)))
        var shelf: Keyshelf!
        var results = 0
        let open = try measure(repeat: 3) {
            shelf = try Keyshelf(vault: vault, consent: ApproveAll())
            results += shelf.domains().count
        }
        // The search keys are built on the first search after a load.
        let firstSearch = try measure { results += shelf.search("xyz").count }
        let keystrokes = ["e", "ex", "exa", "user4", "user42", "note", "xyz"]
        let search = try measure(repeat: 5) { for q in keystrokes { results += shelf.search(q).count } } / Double(keystrokes.count)
        let domains = try measure(repeat: 5) { results += shelf.domains().count }
        let target = try ServerName(parsing: "site\(count / 12).example")
        let get = try measure(repeat: 5) { _ = try shelf.get(server: target) }
        let add = try measure { try shelf.add(server: target, account: "new@bench", password: PasswordGenerator.generate(), to: .shared) }
        let addAndList = try measure {
            try shelf.add(server: target, account: "other@bench", password: PasswordGenerator.generate(), to: .shared)
            results += shelf.domains().count
        }
        print(String(format: "%7d credentials: load+listing %.1f ms, first search %.1f ms, search/keystroke %.2f ms, domains %.2f ms, get %.3f ms, add %.1f ms, add+relist %.1f ms",
                     count, open, firstSearch, search, domains, get, add, addAndList))
        _ = results
    }
}

/// Items whose passwords share one secure buffer, as a decoded vault's do
/// (one `sodium_malloc` per password would exhaust the process's mappings).
private func benchItems(_ count: Int, synchronizable: Bool) -> [Item] {
    let passwords = (0..<count).map { Array("pw-\($0)".utf8) }
    let storage = SecureBytes(copying: passwords.joined())
    var offset = 0
    return (0..<count).map { n in
        let range = offset..<(offset + passwords[n].count)
        offset = range.upperBound
        return Item(account: "user\(n)@example.com", server: "site\(n / 3).example", port: n % 11 == 0 ? 8443 : 0,
                    comment: n % 5 == 0 ? "note \(n)" : "", synchronizable: synchronizable,
                    password: Secret(storage: storage, range: range))
    }
}

/// Milliseconds of this thread's CPU time per run, best of `repeat` runs
/// (CPU time, not wall time, so other processes on a shared machine do not
/// inflate the figures).
func measure(repeat count: Int = 1, _ body: () throws -> Void) throws -> Double {
    var best = Double.infinity
    for _ in 0..<count {
        let start = threadCPUNanoseconds()
        try body()
        best = min(best, Double(threadCPUNanoseconds() - start) / 1e6)
    }
    return best
}

func threadCPUNanoseconds() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
    return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
}
