import CSodium
import Glibc

/// Bytes that may hold a secret (a password, a reply with one): `malloc`ed,
/// locked out of swap with `sodium_mlock`, wiped and unlocked
/// (`sodium_munlock`) when released.
final class LockedBytes {
    let base: UnsafeMutableRawPointer
    let count: Int

    /// - Parameter count: bytes, more than 0.
    /// - Throws: `HandBack.agentTrouble` when the memory cannot be had or
    ///   locked: the full program then runs and prints its warning about
    ///   memory it cannot lock.
    init(count: Int) throws(HandBack) {
        guard count > 0, let base = malloc(count) else { throw .agentTrouble }
        guard sodium_mlock(base, count) == 0 else {
            free(base)
            throw .agentTrouble
        }
        self.base = base
        self.count = count
    }

    deinit {
        // sodium_munlock wipes the bytes before unlocking them.
        sodium_munlock(base, count)
        free(base)
    }

    var buffer: UnsafeMutableRawBufferPointer { UnsafeMutableRawBufferPointer(start: base, count: count) }
}
