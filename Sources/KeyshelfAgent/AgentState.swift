import Glibc
import KeyshelfVault

/// The agent's keys and limits. Times are `Clock.now()` seconds.
struct AgentState {
    private(set) var keys: [VaultPasswordKey] = []
    private var idleSeconds = 0.0
    private(set) var idleDeadline: Double
    private(set) var absoluteDeadline: Double
    /// Set by `lock()` and by a limit running out: the agent then exits.
    private var locked = false

    /// A fresh agent, waiting `AgentServer.firstUnlockSeconds` for its keys.
    init(now: Double) {
        idleDeadline = now + AgentServer.firstUnlockSeconds
        absoluteDeadline = idleDeadline
    }

    var unlocked: Bool { !keys.isEmpty }

    mutating func unlock(_ newKeys: [VaultPasswordKey], timeouts: AgentTimeouts, now: Double) {
        wipe()
        keys = newKeys
        idleSeconds = Double(timeouts.idleSeconds)
        idleDeadline = now + idleSeconds
        absoluteDeadline = now + Double(timeouts.maximumSeconds)
    }

    /// `passwd` changed the master password: `newKeys` replace the keys
    /// (wiped), the absolute limit stays and the idle limit starts again, as
    /// after any use (Argon2id twice may take longer than the idle limit).
    /// A locked agent, or one past its absolute limit, wipes `newKeys` instead.
    mutating func replaceKeys(_ newKeys: [VaultPasswordKey], now: Double) {
        guard !locked, now < absoluteDeadline else {
            for key in newKeys { key.key.wipe() }
            return
        }
        wipe()
        keys = newKeys
        touch(now: now)
    }

    /// A use: the idle limit starts again.
    mutating func touch(now: Double) {
        idleDeadline = now + idleSeconds
    }

    mutating func lock() {
        wipe()
        locked = true
    }

    /// Zeroes every key (`sodium_memzero`) and forgets them.
    mutating func wipe() {
        for key in keys { key.key.wipe() }
        keys = []
    }

    /// Seconds until the next limit.
    func secondsUntilDeadline(at now: Double) -> Double {
        min(idleDeadline, absoluteDeadline) - now
    }

    func isFinished(at now: Double) -> Bool {
        locked || secondsUntilDeadline(at: now) <= 0
    }
}

/// Seconds since boot, counting time suspended (`CLOCK_BOOTTIME`), so a
/// laptop that slept past a limit is locked when it wakes.
enum Clock {
    static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_BOOTTIME, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}
