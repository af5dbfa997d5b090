import Foundation
import KeyshelfCrypto
#if canImport(Glibc)
import Glibc
#endif

/// Crash-safe replacement of a vault file, with rotated backups.
///
/// Steps: write a temporary file (mode 0600) in the same directory, fsync
/// it, check that the file on disk is still the version last read, hard-link
/// it as `backups/NAME.pending.bak`, rename the temporary file over it, fsync
/// the directory, and only then rotate the backups (`.pending` becomes `.1`).
/// At every instant the path names either the old or the new complete file;
/// a failed save leaves the backups as they were.
enum AtomicFile {
    /// Previous versions kept per vault file, in `backups/NAME.1.bak` (newest) … `NAME.3.bak`.
    static let backupCount = 3
    static let backupDirectoryName = "backups"

    /// Replaces `directory/name` with `header` + `payload`.
    /// - Parameters:
    ///   - expected: the identity of the version the caller read, nil when it read no file.
    ///   - renameFile: `rename(2)`; a test replaces it to make the final step fail.
    /// - Returns: the identity of the new file.
    /// - Throws: `VaultError.changedOnDisk` when the file is no longer `expected`;
    ///   `.io` when `directory/name` is a symbolic link (never replaced) or a system call fails.
    static func replace(
        directory: String, name: String, header: [UInt8], payload: [UInt8], expected: FileIdentity?,
        renameFile: (String, String) -> Int32 = { rename($0, $1) }
    ) throws -> FileIdentity {
        try replace(
            directory: directory, name: name, header: header, payloadByteCount: payload.count,
            writePayload: { write in try payload.withUnsafeBytes { try write($0) } },
            expected: expected, renameFile: renameFile)
    }

    /// Replaces `directory/name` with `header` + a payload that `writePayload`
    /// produces piece by piece (it calls `write` with each piece in order), so
    /// a sealed payload goes to the temporary file without a whole-file buffer.
    /// - Parameters:
    ///   - payloadByteCount: the bytes `writePayload` writes in all (checked).
    ///   - expected: the identity of the version the caller read, nil when it read no file.
    ///   - renameFile: `rename(2)`; a test replaces it to make the final step fail.
    ///   - rotateBackups: false leaves the replaced version as
    ///     `NAME.pending.bak`, for `Backups.settlePending` to rotate in later
    ///     (the next save does, or the caller once it has answered its client).
    /// - Returns: the identity of the new file.
    /// - Throws: `VaultError.changedOnDisk` when the file is no longer `expected`;
    ///   `.io` when `directory/name` is a symbolic link (never replaced) or a
    ///   system call fails; whatever `writePayload` throws (nothing is replaced then).
    static func replace(
        directory: String, name: String, header: [UInt8], payloadByteCount: Int,
        writePayload: (_ write: (UnsafeRawBufferPointer) throws -> Void) throws -> Void,
        expected: FileIdentity?, renameFile: (String, String) -> Int32 = { rename($0, $1) },
        rotateBackups: Bool = true
    ) throws -> FileIdentity {
        let path = directory + "/" + name
        try FileSystem.refuseSymbolicLink(path)
        try checkUnchanged(path, expected: expected)
        removeStaleTemporaryFiles(directory: directory, name: name)
        let backups = Backups(directory: directory, name: name)
        try backups.settlePending(current: expected)
        let temporary = directory + "/." + name + "." + String(getpid()) + "." + Random.bytes(6).map { String($0, radix: 16) }.joined() + ".tmp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw FileSystem.ioError(temporary, "create a temporary file") }
        var renamed = false
        var pending = false
        defer {
            close(fd)
            if !renamed {
                unlink(temporary)
                if pending { unlink(backups.pending) }
            }
        }
        guard fchmod(fd, 0o600) == 0 else { throw FileSystem.ioError(temporary, "set mode 0600") }
        try header.withUnsafeBytes { try FileSystem.writeAll(fd, $0, path: temporary) }
        var written = 0
        try writePayload { piece in
            try FileSystem.writeAll(fd, piece, path: temporary)
            written += piece.count
        }
        precondition(written == payloadByteCount, "payload size mismatch")
        guard fsync(fd) == 0 else { throw FileSystem.ioError(temporary, "sync the file") }
        // Checked again just before the backup link (which itself changes the file's ctime).
        try checkUnchanged(path, expected: expected)
        if expected != nil {
            try backups.keepPending()
            pending = true
        }
        guard renameFile(temporary, path) == 0 else { throw FileSystem.ioError(path, "replace the vault file") }
        renamed = true
        try FileSystem.syncDirectory(directory)
        var s = stat()
        guard fstat(fd, &s) == 0 else { throw FileSystem.ioError(path, "examine the new file") }
        if pending && rotateBackups { try backups.rotate() }
        return FileIdentity(s)
    }

    /// Removes temporary files left by a writer that was killed. Callers hold
    /// the directory's lock, so no live writer owns one.
    private static func removeStaleTemporaryFiles(directory: String, name: String) {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return }
        for entry in entries where entry.hasPrefix("." + name + ".") && entry.hasSuffix(".tmp") {
            unlink(directory + "/" + entry)
        }
    }

    static func checkUnchanged(_ path: String, expected: FileIdentity?) throws {
        guard try FileSystem.identity(of: path) == expected else { throw changedOnDisk(path) }
    }

    /// The file at `path` is not the version the writer read; nothing was written.
    static func changedOnDisk(_ path: String) -> VaultError {
        VaultError(.changedOnDisk, file: path, reason: "changed on disk since it was read (another program replaced it); nothing was written — reopen the vault and try again")
    }
}

/// The backups of one vault file: `backups/NAME.1.bak` (newest) … `NAME.3.bak`,
/// and `NAME.pending.bak`, the version being replaced while a save is under way.
struct Backups {
    /// The vault file these are backups of.
    let file: String
    let directory: String
    let stem: String

    init(directory: String, name: String) {
        file = directory + "/" + name
        self.directory = directory + "/" + AtomicFile.backupDirectoryName
        stem = String(name.dropLast(".vault".count))
    }

    func numbered(_ k: Int) -> String { "\(directory)/\(stem).\(k).bak" }
    var pending: String { "\(directory)/\(stem).pending.bak" }

    /// Deals with a pending backup left by a writer killed mid-save. When it
    /// is the version that save replaced (killed after the rename), it is
    /// rotated in. When it is still the current file (killed before the
    /// rename), it stays until `keepPending` replaces it: unlinking it now
    /// would change the current file's ctime, which the save checks.
    /// - Parameter current: the identity of the vault file now on disk.
    func settlePending(current: FileIdentity?) throws {
        guard let left = try FileSystem.identity(of: pending) else { return }
        if let current, left.device == current.device, left.inode == current.inode { return }
        try rotate()
    }

    /// Links (or, without hard links, copies) the current vault file as the pending backup.
    func keepPending() throws {
        if mkdir(directory, 0o700) != 0 && errno != EEXIST { throw FileSystem.ioError(directory, "create the backup directory") }
        unlink(pending)
        guard link(file, pending) != 0 else { return }
        do {
            try FileManager.default.copyItem(atPath: file, toPath: pending)
        } catch {
            throw VaultError(.io, file: pending, reason: "cannot keep a backup of the previous version: \(error.localizedDescription)")
        }
    }

    /// Shifts `NAME.k.bak` to `NAME.(k+1).bak` (the oldest is dropped) and makes the pending backup `NAME.1.bak`.
    func rotate() throws {
        for k in stride(from: AtomicFile.backupCount - 1, through: 1, by: -1) {
            if rename(numbered(k), numbered(k + 1)) != 0 && errno != ENOENT {
                throw FileSystem.ioError(numbered(k), "rotate backups")
            }
        }
        guard rename(pending, numbered(1)) == 0 else { throw FileSystem.ioError(pending, "rotate backups") }
    }
}

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
