import CSystem
import CSodium
#if canImport(Glibc)
import Glibc
#endif

/// Process-wide protections for a program that holds secrets.
public enum ProcessHardening {
    /// Disables core dumps (`RLIMIT_CORE` = 0, `PR_SET_DUMPABLE` = 0) so a
    /// crash never writes unlocked keys or passwords to disk.
    /// - Returns: false when the kernel refused (the program still runs).
    @discardableResult
    public static func disableCoreDumps() -> Bool {
        keyshelf_disable_core_dumps() == 0
    }

    /// Ignores `SIGXFSZ`, so that a write past the file size limit
    /// (`RLIMIT_FSIZE`, `ulimit -f`) fails with `EFBIG`, which a save reports
    /// and cleans up after (no temporary file left), instead of killing the
    /// process mid-save (issue 11, item 21).
    public static func ignoreFileSizeSignal() {
        signal(SIGXFSZ, SIG_IGN)
    }

    /// Serves every allocation of 1 MiB or more with its own mapping, given
    /// back to the kernel when freed. glibc otherwise raises that threshold
    /// after the first large free (up to 32 MiB), and later large buffers
    /// (a listing of 100 000 credentials, a decoded vault) stay in the heap
    /// and in the process's resident memory after use. For the agent, which
    /// lives for hours (issue 15 item 3: peak RSS at 100k credentials).
    public static func returnLargeFreesToTheKernel() {
        _ = keyshelf_set_mmap_threshold(1 << 20)
    }
}
