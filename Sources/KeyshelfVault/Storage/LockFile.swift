import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The advisory lock (`flock`) serialising writers of one vault directory.
enum LockFile {
    /// The lock file's name inside the vault directory.
    static let name = "keyshelf.lock"

    /// Runs `body` while holding an exclusive `flock` on `directory/keyshelf.lock`.
    /// Tries without blocking every 50 ms for up to `timeout` seconds.
    /// - Throws: `.io` naming the lock file when another process holds the
    ///   lock for longer than `timeout`, or when it cannot be opened or locked;
    ///   whatever `body` throws.
    static func withExclusiveLock<T>(directory: String, timeout: TimeInterval, _ body: () throws -> T) throws -> T {
        try withLock(LOCK_EX, directory: directory, timeout: timeout, body)
    }

    /// Runs `body` while holding a shared `flock` on `directory/keyshelf.lock`:
    /// no keyshelf writer runs meanwhile, other readers may. As `withExclusiveLock`.
    static func withSharedLock<T>(directory: String, timeout: TimeInterval, _ body: () throws -> T) throws -> T {
        try withLock(LOCK_SH, directory: directory, timeout: timeout, body)
    }

    private static func withLock<T>(_ operation: Int32, directory: String, timeout: TimeInterval, _ body: () throws -> T) throws -> T {
        let path = directory + "/" + name
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw FileSystem.ioError(path, "open the lock file") }
        defer { close(fd) }
        let clock = ContinuousClock()
        let deadline = clock.now + .milliseconds(Int64(max(0, timeout) * 1000))
        while flock(fd, operation | LOCK_NB) != 0 {
            let code = errno
            if code == EINTR { continue }
            guard code == EWOULDBLOCK else { throw FileSystem.ioError(path, "lock the vault", code) }
            guard clock.now < deadline else {
                throw VaultError(.io, file: path, reason: "another keyshelf process holds the vault lock (waited \(Int(timeout.rounded())) s); try again when it has finished")
            }
            usleep(50_000)
        }
        return try body()
    }
}
