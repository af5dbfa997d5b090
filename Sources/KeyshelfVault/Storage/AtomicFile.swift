import Foundation
import KeyshelfCrypto
#if canImport(Glibc)
import Glibc
#endif

/// Crash-safe replacement of a vault file, with rotated backups.
///
/// Steps: write a temporary file (mode 0600) in the same directory, fsync
/// it, check that the file on disk is still the version last read, hard-link
/// it into `backups/` (rotating older ones), rename the
/// temporary file over it, fsync the directory. At every instant the path
/// names either the old or the new complete file.
enum AtomicFile {
    /// Previous versions kept per vault file, in `backups/NAME.1.bak` (newest) … `NAME.3.bak`.
    static let backupCount = 3
    static let backupDirectoryName = "backups"

    /// Replaces `directory/name` with `header` + `payload`.
    /// - Parameter expected: the identity of the version the caller read, nil when it read no file.
    /// - Returns: the identity of the new file.
    /// - Throws: `VaultError.changedOnDisk` when the file is no longer `expected`; `.io`.
    static func replace(directory: String, name: String, header: [UInt8], payload: [UInt8], expected: FileIdentity?) throws -> FileIdentity {
        let path = directory + "/" + name
        try checkUnchanged(path, expected: expected)
        removeStaleTemporaryFiles(directory: directory, name: name)
        let temporary = directory + "/." + name + "." + String(getpid()) + "." + Random.bytes(6).map { String($0, radix: 16) }.joined() + ".tmp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw FileSystem.ioError(temporary, "create a temporary file") }
        var renamed = false
        defer {
            close(fd)
            if !renamed { unlink(temporary) }
        }
        guard fchmod(fd, 0o600) == 0 else { throw FileSystem.ioError(temporary, "set mode 0600") }
        try FileSystem.writeAll(fd, header, path: temporary)
        try FileSystem.writeAll(fd, payload, path: temporary)
        guard fsync(fd) == 0 else { throw FileSystem.ioError(temporary, "sync the file") }
        // Checked again just before the backup link (which itself changes the file's ctime).
        try checkUnchanged(path, expected: expected)
        if expected != nil { try keepBackup(directory: directory, name: name) }
        guard rename(temporary, path) == 0 else { throw FileSystem.ioError(path, "replace the vault file") }
        renamed = true
        try FileSystem.syncDirectory(directory)
        var s = stat()
        guard fstat(fd, &s) == 0 else { throw FileSystem.ioError(path, "examine the new file") }
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
        guard try FileSystem.identity(of: path) == expected else {
            throw VaultError(.changedOnDisk, file: path, reason: "changed on disk since it was read (another program replaced it); nothing was written — reopen the vault and try again")
        }
    }

    /// Shifts `NAME.k.bak` to `NAME.(k+1).bak` and links the current file as `NAME.1.bak`.
    private static func keepBackup(directory: String, name: String) throws {
        let backups = directory + "/" + backupDirectoryName
        if mkdir(backups, 0o700) != 0 && errno != EEXIST { throw FileSystem.ioError(backups, "create the backup directory") }
        let stem = String(name.dropLast(".vault".count))
        func backup(_ k: Int) -> String { "\(backups)/\(stem).\(k).bak" }
        for k in stride(from: backupCount - 1, through: 1, by: -1) {
            if rename(backup(k), backup(k + 1)) != 0 && errno != ENOENT {
                throw FileSystem.ioError(backup(k), "rotate backups")
            }
        }
        unlink(backup(1))
        guard link(directory + "/" + name, backup(1)) != 0 else { return }
        // A file system without hard links: copy instead.
        do {
            try FileManager.default.copyItem(atPath: directory + "/" + name, toPath: backup(1))
        } catch {
            throw VaultError(.io, file: backup(1), reason: "cannot keep a backup of the previous version: \(error.localizedDescription)")
        }
    }
}

/// The advisory lock (`flock`) serialising writers of one vault directory.
enum LockFile {
    /// The lock file's name inside the vault directory.
    static let name = "keyshelf.lock"

    /// Runs `body` while holding an exclusive `flock` on `directory/keyshelf.lock`.
    static func withExclusiveLock<T>(directory: String, _ body: () throws -> T) throws -> T {
        let path = directory + "/" + name
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw FileSystem.ioError(path, "open the lock file") }
        defer { close(fd) }
        while flock(fd, LOCK_EX) != 0 {
            guard errno == EINTR else { throw FileSystem.ioError(path, "lock the vault") }
        }
        return try body()
    }
}
