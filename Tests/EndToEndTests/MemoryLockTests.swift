import Foundation
import KeyshelfTestSupport
import Glibc
import Testing

/// When `mlock` fails (`RLIMIT_MEMLOCK`), keyshelf says so once and goes on
/// (issue 11 item 26); it never claims memory is locked when it is not.
@Suite struct MemoryLockTests {
    /// Runs keyshelf under `prlimit --memlock=BYTES` (nil: the inherited
    /// limit); as root, without `CAP_IPC_LOCK` (`setpriv`), which would ignore the limit.
    static func run(_ vault: TestVault, _ arguments: [String], memlockBytes: Int?) throws -> Run {
        let limited = (memlockBytes.map { ["/usr/bin/prlimit", "--memlock=\($0):\($0)"] } ?? []) + [Keyshelf.binary.path] + arguments
        let command = getuid() == 0 ? ["/usr/bin/setpriv", "--bounding-set=-ipc_lock", "--inh-caps=-ipc_lock"] + limited : limited
        return try Program.runDetached(command[0], Array(command.dropFirst()), environment: vault.environment)
    }

    @Test func aTinyMemlockLimitIsReportedExactlyOnce() throws {
        let vault = try TestVault()
        for n in 1...3 { try vault.add("\(n).example.com", "alice", password: "pw\(n)") }
        let result = try Self.run(vault, ["list"], memlockBytes: 8192)
        #expect(result.status == 0, "\(result)")
        #expect(result.stderr.components(separatedBy: "cannot lock secret memory").count - 1 == 1, "\(result)")
        #expect(result.stderr.contains("RLIMIT_MEMLOCK is 8 KiB"), "\(result)")
        #expect(result.lines.count == 3, "\(result)")
    }

    /// This test run's `RLIMIT_MEMLOCK` in bytes (0 when unknown).
    static var inheritedLimit: UInt {
        var limit = rlimit()
        return getrlimit(__rlimit_resource_t(__RLIMIT_MEMLOCK.rawValue), &limit) == 0 ? limit.rlim_cur : 0
    }

    @Test(.enabled(if: inheritedLimit >= 1 << 20, "this run's RLIMIT_MEMLOCK is below 1 MiB, too small for a vault"))
    func anAmpleLimitSaysNothing() throws {
        let vault = try TestVault()
        try vault.add("example.com", "alice", password: "pw")
        let result = try Self.run(vault, ["list"], memlockBytes: nil)
        #expect(result.status == 0, "\(result)")
        #expect(!result.stderr.contains("cannot lock"), "\(result)")
    }
}
