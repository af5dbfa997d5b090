import Foundation
#if canImport(Glibc)
import Glibc
#endif

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

    /// Whether the pending backup is a version the file has since been
    /// replaced by (a rename happened after the link), not the current file.
    /// - Parameter current: the identity of the vault file now on disk.
    func pendingWasReplaced(current: FileIdentity?) throws -> Bool {
        guard let left = try FileSystem.identity(of: pending) else { return false }
        guard let current else { return true }
        return left.device != current.device || left.inode != current.inode
    }

    /// Deals with a pending backup left by a writer killed mid-save. When it
    /// is the version that save replaced (killed after the rename), it is
    /// rotated in. When it is still the current file (killed before the
    /// rename), it stays until `keepPending` replaces it: unlinking it now
    /// would change the current file's ctime, which the save checks.
    /// - Parameter current: the identity of the vault file now on disk.
    func settlePending(current: FileIdentity?) throws {
        if try pendingWasReplaced(current: current) { try rotate() }
    }

    /// Links (or, without hard links, copies) the current vault file as the pending backup.
    func keepPending() throws {
        if mkdir(directory, 0o700) != 0 && errno != EEXIST { throw FileSystem.ioError(directory, "create the backup directory") }
        _ = SystemCalls.unlink(pending)
        guard SystemCalls.link(file, pending) != 0 else { return }
        do {
            try FileManager.default.copyItem(atPath: file, toPath: pending)
        } catch {
            throw VaultError(.io, file: pending, reason: "cannot keep a backup of the previous version: \(error.localizedDescription)")
        }
    }

    /// Shifts `NAME.k.bak` to `NAME.(k+1).bak` (the oldest is dropped) and makes the pending backup `NAME.1.bak`.
    func rotate() throws {
        for k in stride(from: AtomicFile.backupCount - 1, through: 1, by: -1) {
            if SystemCalls.rename(numbered(k), numbered(k + 1)) != 0 && errno != ENOENT {
                throw FileSystem.ioError(numbered(k), "rotate backups")
            }
        }
        guard SystemCalls.rename(pending, numbered(1)) == 0 else { throw FileSystem.ioError(pending, "rotate backups") }
    }

    /// The warning of a save that committed but could not rotate its
    /// backups (`error`, e.g. an immutable `NAME.1.bak`).
    func rotationWarning(_ error: Error) -> VaultWarning {
        VaultWarning(file: directory, reason: "the change is saved, but the backups could not be rotated (\(Self.reason(error))); the replaced version stays as \(pending) — make backups/ writable again (chmod, chattr -i); until then saves keep no new backups")
    }

    static func reason(_ error: Error) -> String {
        (error as? VaultError)?.description ?? "\(error)"
    }
}
