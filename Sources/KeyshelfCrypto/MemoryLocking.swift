import CSodium
import Glibc
import Synchronization

/// Whether secret memory really is locked out of swap (issue 11 item 26).
///
/// `sodium_malloc` calls `mlock` on every buffer but goes on silently when
/// it fails, which it does once a process holds more than `RLIMIT_MEMLOCK`
/// (often 8 MiB; a large vault's decoded payload is more). `SecureBytes`
/// therefore locks each new buffer again with `sodium_mlock` (a no-op on
/// pages already locked) and, the first time that fails, reports it once
/// per process through the handler installed here; after that it stops checking.
public enum MemoryLocking {
    private static let failed = Atomic<Bool>(false)
    private static let handler = Mutex<(@Sendable (String) -> Void)?>(nil)

    /// Installs `report`, called at most once per process with a sentence
    /// saying that secret memory could not be locked, the limit, and what to
    /// do. The program's entry point installs one that writes to standard error.
    public static func onFirstFailure(_ report: @escaping @Sendable (String) -> Void) {
        handler.withLock { $0 = report }
    }

    /// True once a buffer could not be locked in this process.
    public static var hasFailed: Bool { failed.load(ordering: .relaxed) }

    /// Locks `byteCount` bytes at `pointer` (`sodium_mlock`), reporting the first failure.
    static func lock(_ pointer: UnsafeMutableRawPointer, byteCount: Int) {
        guard !failed.load(ordering: .relaxed), sodium_mlock(pointer, byteCount) != 0 else { return }
        let code = errno
        guard failed.compareExchange(expected: false, desired: true, ordering: .relaxed).exchanged else { return }
        let report = handler.withLock { $0 }
        report?(failureMessage(errno: code))
    }

    /// "cannot lock secret memory (RLIMIT_MEMLOCK is 8192 KiB: …)".
    static func failureMessage(errno code: Int32) -> String {
        var limit = rlimit()
        let text = getrlimit(__rlimit_resource_t(__RLIMIT_MEMLOCK.rawValue), &limit) == 0
            ? (limit.rlim_cur == rlim_t.max ? "unlimited" : "\(limit.rlim_cur / 1024) KiB")
            : "unknown"
        return "warning: cannot lock secret memory out of swap (\(String(cString: strerror(code))); RLIMIT_MEMLOCK is \(text)): passwords and keys beyond that limit may be written to swap. Raise the limit (`ulimit -l`, or LimitMEMLOCK= in a systemd unit) or use encrypted swap"
    }
}
