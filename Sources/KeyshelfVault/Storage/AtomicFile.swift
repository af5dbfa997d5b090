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
/// a failed save leaves the backups as they were. The rename is the commit:
/// what fails after it is a warning, not an error (docs/vault-format.md, "Saving").
enum AtomicFile {
    /// Previous versions kept per vault file, in `backups/NAME.1.bak` (newest) … `NAME.3.bak`.
    static let backupCount = 3
    static let backupDirectoryName = "backups"

    /// What a save that committed did.
    struct Saved {
        /// The identity of the new file; nil when it could not be examined
        /// (the session then reads it again).
        var identity: FileIdentity?
        /// What the save could not do after its commit.
        var warnings: [VaultWarning] = []
    }

    /// Replaces `directory/name` with `header` + `payload`; as the other `replace`.
    static func replace(
        directory: String, name: String, header: [UInt8], payload: [UInt8], expected: FileIdentity?
    ) throws -> Saved {
        try replace(
            directory: directory, name: name, header: header, payloadByteCount: payload.count,
            writePayload: { write in try payload.withUnsafeBytes { try write($0) } }, expected: expected)
    }

    /// Replaces `directory/name` with `header` + a payload that `writePayload`
    /// produces piece by piece (it calls `write` with each piece in order), so
    /// a sealed payload goes to the temporary file without a whole-file buffer.
    /// - Parameters:
    ///   - payloadByteCount: the bytes `writePayload` writes in all (checked).
    ///   - expected: the identity of the version the caller read, nil when it read no file.
    ///   - rotateBackups: false leaves the replaced version as
    ///     `NAME.pending.bak`, for `Backups.settlePending` to rotate in later
    ///     (the next save does, or the caller once it has answered its client).
    /// - Returns: the new file's identity, and warnings: the directory sync
    ///   after the rename failed (the backups are then left as they were and
    ///   the pending backup removed), or the backups could not be rotated.
    /// - Throws: `VaultError.changedOnDisk` when the file is no longer `expected`;
    ///   `.io` when `directory/name` is a symbolic link (never replaced) or a
    ///   system call before the rename fails; whatever `writePayload` throws.
    ///   Nothing is replaced then, and no temporary file is left.
    static func replace(
        directory: String, name: String, header: [UInt8], payloadByteCount: Int,
        writePayload: (_ write: (UnsafeRawBufferPointer) throws -> Void) throws -> Void,
        expected: FileIdentity?, rotateBackups: Bool = true
    ) throws -> Saved {
        let path = directory + "/" + name
        try FileSystem.refuseSymbolicLink(path)
        try checkUnchanged(path, expected: expected)
        removeStaleTemporaryFiles(directory: directory, name: name)
        let backups = Backups(directory: directory, name: name)
        var saved = Saved()
        var keepsBackup = expected != nil
        do {
            try backups.settlePending(current: expected)
        } catch {
            // Backups that cannot rotate (an immutable one) must not stop every save.
            saved.warnings.append(backups.rotationWarning(error))
            keepsBackup = false
        }
        let temporary = try TemporaryFile(directory: directory, name: name, header: header,
                                          payloadByteCount: payloadByteCount, writePayload: writePayload)
        var pending = false
        do {
            // Checked again just before the backup link (which itself changes the file's ctime).
            try checkUnchanged(path, expected: expected)
            if keepsBackup {
                try backups.keepPending()
                pending = true
            }
            try temporary.rename(to: path)
        } catch {
            temporary.discard()
            if pending { _ = SystemCalls.unlink(backups.pending) }
            throw error
        }
        defer { temporary.close() }
        do {
            try FileSystem.syncDirectory(directory)
        } catch {
            saved.warnings.append(VaultWarning(file: directory, reason: "the change is saved, but the directory could not be synced (\(Backups.reason(error))): it may not survive a power loss; the backups were left as they were"))
            if pending { _ = SystemCalls.unlink(backups.pending) }
            pending = false
        }
        saved.identity = temporary.identity()
        if pending && rotateBackups {
            do { try backups.rotate() } catch { saved.warnings.append(backups.rotationWarning(error)) }
        }
        return saved
    }

    /// Removes temporary files left by a writer that was killed. Callers hold
    /// the directory's lock, so no live writer owns one.
    static func removeStaleTemporaryFiles(directory: String, name: String) {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return }
        for entry in entries where entry.hasPrefix("." + name + ".") && entry.hasSuffix(".tmp") {
            _ = SystemCalls.unlink(directory + "/" + entry)
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

/// A new version of a vault file, written and synced beside it as
/// `.NAME.PID.RANDOM.tmp` (mode 0600), until it is renamed over the file or
/// discarded. Its descriptor is closed once, by `close()` or `discard()`
/// (a second close could close a descriptor another thread opened meanwhile).
final class TemporaryFile {
    let path: String
    private var fd: Int32

    /// Creates the file and writes `header` and the payload, then `fsync`s it.
    /// - Throws: `.io` naming the temporary file (nothing is left then);
    ///   whatever `writePayload` throws.
    init(directory: String, name: String, header: [UInt8], payloadByteCount: Int,
         writePayload: (_ write: (UnsafeRawBufferPointer) throws -> Void) throws -> Void) throws {
        let path = directory + "/." + name + "." + String(getpid()) + "." + Random.bytes(6).map { String($0, radix: 16) }.joined() + ".tmp"
        let fd = SystemCalls.create(path)
        guard fd >= 0 else { throw FileSystem.ioError(path, "create a temporary file") }
        self.path = path
        self.fd = fd
        do {
            guard fchmod(fd, 0o600) == 0 else { throw FileSystem.ioError(path, "set mode 0600") }
            try header.withUnsafeBytes { try FileSystem.writeAll(fd, $0, path: path) }
            var written = 0
            try writePayload { piece in
                try FileSystem.writeAll(fd, piece, path: path)
                written += piece.count
            }
            precondition(written == payloadByteCount, "payload size mismatch")
            guard SystemCalls.fsync(fd, path: path) == 0 else { throw FileSystem.ioError(path, "sync the file") }
        } catch {
            discard()
            throw error
        }
    }

    /// Renames the file over `target` (the commit of one file).
    /// - Throws: `.io` naming `target`; the temporary file is still there.
    func rename(to target: String) throws {
        guard SystemCalls.rename(path, target) == 0 else { throw FileSystem.ioError(target, "replace the vault file") }
    }

    /// The identity of the written file (after its rename: the rename changes its ctime).
    func identity() -> FileIdentity? {
        var s = stat()
        return fstat(fd, &s) == 0 ? FileIdentity(s) : nil
    }

    /// Closes and removes the file (before a rename).
    func discard() {
        close()
        _ = SystemCalls.unlink(path)
    }

    func close() {
        guard fd >= 0 else { return }
        _ = Glibc.close(fd)
        fd = -1
    }

    deinit { close() }
}
