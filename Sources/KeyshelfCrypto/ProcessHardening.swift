import CSystem
import CSodium

/// Process-wide protections for a program that holds secrets.
public enum ProcessHardening {
    /// Disables core dumps (`RLIMIT_CORE` = 0, `PR_SET_DUMPABLE` = 0) so a
    /// crash never writes unlocked keys or passwords to disk.
    /// - Returns: false when the kernel refused (the program still runs).
    @discardableResult
    public static func disableCoreDumps() -> Bool {
        keyshelf_disable_core_dumps() == 0
    }
}
