import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Replaces several vault files all or nothing, for `passwd`, which must
/// never leave `local.vault` and `shared.vault` under two passwords
/// (docs/vault-format.md, "Changing the master password").
///
/// Protocol: write and `fsync` every new file as a temporary file; check
/// every file is still the version read; link each as
/// `backups/NAME.pending.bak` and `fsync` `backups/`; create the journal
/// `passwd.journal` naming the files and `fsync` it and the directory; rename
/// every temporary file over its file; `fsync` the directory; remove the
/// journal and `fsync` the directory (the commit); rotate the backups.
/// A failure before the commit renames the pending backups back; a crash
/// leaves the journal, and `recover` (run by every open) finishes or undoes it.
enum JointReplace {
    /// The journal's name inside the vault directory.
    static let journalName = "passwd.journal"
    private static let journalTitle = "keyshelf passwd journal 1"

    /// One file to replace: `name` in the directory, with `header` + `payload`,
    /// when it is still the version `expected`.
    struct File {
        var name: String
        var header: [UInt8]
        var payload: [UInt8]
        var expected: FileIdentity
    }

    /// Replaces every file of `files` in `directory` (whose lock the caller holds).
    /// - Returns: the new files' identities (in order; nil for one that could
    ///   not be examined) and the warnings of what failed after the commit.
    /// - Throws: `VaultError.changedOnDisk` when a file is no longer its
    ///   `expected`; `.io` for a failed system call before the commit: every
    ///   file is then the version it was, unless even undoing failed, when
    ///   the error names the backup to restore.
    static func replace(directory: String, files: [File]) throws -> (identities: [FileIdentity?], warnings: [VaultWarning]) {
        let journal = directory + "/" + journalName
        let backups = files.map { Backups(directory: directory, name: $0.name) }
        for (file, backup) in zip(files, backups) {
            let path = directory + "/" + file.name
            try FileSystem.refuseSymbolicLink(path)
            try AtomicFile.checkUnchanged(path, expected: file.expected)
            AtomicFile.removeStaleTemporaryFiles(directory: directory, name: file.name)
            do {
                try backup.settlePending(current: file.expected)
            } catch {
                // The pending backups are the undo of this change: their place must be free.
                throw VaultError(.io, file: backup.directory, reason: "cannot change the master password while the backups cannot rotate (\(Backups.reason(error))); make backups/ writable again (chmod, chattr -i) and try again; nothing was changed")
            }
        }
        var temporaries: [TemporaryFile] = []
        defer { temporaries.forEach { $0.close() } }
        var renamed = 0
        do {
            for file in files {
                temporaries.append(try TemporaryFile(
                    directory: directory, name: file.name, header: file.header, payloadByteCount: file.payload.count,
                    writePayload: { write in try file.payload.withUnsafeBytes { try write($0) } }))
            }
            for file in files { try AtomicFile.checkUnchanged(directory + "/" + file.name, expected: file.expected) }
            for backup in backups { try backup.keepPending() }
            try FileSystem.syncDirectory(backups[0].directory)
            try writeJournal(journal, names: files.map(\.name), directory: directory)
            for (temporary, file) in zip(temporaries, files) {
                try temporary.rename(to: directory + "/" + file.name)
                renamed += 1
            }
            try FileSystem.syncDirectory(directory)
            guard SystemCalls.unlink(journal) == 0 else { throw FileSystem.ioError(journal, "remove the journal") }
        } catch {
            for temporary in temporaries.dropFirst(renamed) { temporary.discard() }
            try undo(files.prefix(renamed).map(\.name), backups: backups, journal: journal, directory: directory, after: error)
            throw error
        }
        var warnings: [VaultWarning] = []
        do {
            try FileSystem.syncDirectory(directory)
        } catch {
            warnings.append(VaultWarning(file: directory, reason: "the master password is changed, but the directory could not be synced (\(Backups.reason(error))): after a power loss the next open may undo the change"))
        }
        for backup in backups {
            do { try backup.rotate() } catch { warnings.append(backup.rotationWarning(error)) }
        }
        return (temporaries.map { $0.identity() }, warnings)
    }

    /// Finishes or undoes a replacement a crash interrupted, when the
    /// journal is there (the caller holds the directory's lock): when every
    /// file it names was replaced, the new files stay (the backups are
    /// rotated); otherwise each replaced one gets its pending backup back.
    /// Either way all files then open with one password, and the journal is removed.
    /// - Returns: warnings of what could not be done after that (backup rotation).
    /// - Throws: `.io` naming the backup to restore when undoing failed (the
    ///   journal stays, so the next open tries again).
    static func recover(directory: String) throws -> [VaultWarning] {
        let journal = directory + "/" + journalName
        guard try FileSystem.identity(of: journal) != nil else { return [] }
        let names = try readJournal(journal)
        let backups = names.map { Backups(directory: directory, name: $0) }
        let replaced = try zip(names, backups).filter { name, backup in
            try backup.pendingWasReplaced(current: try FileSystem.identity(of: directory + "/" + name))
        }.map(\.0)
        for name in names { AtomicFile.removeStaleTemporaryFiles(directory: directory, name: name) }
        guard replaced.count == names.count else {
            try undo(replaced, backups: backups, journal: journal, directory: directory, after: nil)
            return []
        }
        guard SystemCalls.unlink(journal) == 0 else { throw FileSystem.ioError(journal, "remove the journal") }
        try FileSystem.syncDirectory(directory)
        var warnings: [VaultWarning] = []
        for backup in backups {
            do { try backup.rotate() } catch { warnings.append(backup.rotationWarning(error)) }
        }
        return warnings
    }

    /// Puts the pending backup of each file in `replaced` back, removes the
    /// other pending backups and the journal, and syncs the directory.
    /// - Parameter cause: the error that made the replacement stop, if any (for the message).
    /// - Throws: `.io` naming the one backup to restore by hand (the journal is kept then).
    private static func undo(_ replaced: [String], backups: [Backups], journal: String, directory: String, after cause: Error?) throws {
        for backup in backups {
            guard replaced.contains(where: { directory + "/" + $0 == backup.file }) else {
                // Still the current file (or absent): passwd's link, or one a killed save left.
                _ = SystemCalls.unlink(backup.pending)
                continue
            }
            guard SystemCalls.rename(backup.pending, backup.file) == 0 else {
                let code = errno
                let why = cause.map { "stopped (\(Backups.reason($0))) and " } ?? ""
                throw VaultError(.io, file: backup.file, reason: "an interrupted `keyshelf passwd` \(why)could not be undone (\(FileSystem.errorText(code))): this file has the new master password, the others the old one. Restore \(backup.pending) as \(backup.file) (it opens with the old password), then remove \(journal)")
            }
        }
        _ = SystemCalls.unlink(journal)
        try? FileSystem.syncDirectory(directory)
    }

    private static func writeJournal(_ path: String, names: [String], directory: String) throws {
        let fd = SystemCalls.create(path)
        guard fd >= 0 else { throw FileSystem.ioError(path, "create the journal") }
        defer { close(fd) }
        let text = ([journalTitle] + names).joined(separator: "\n") + "\n"
        try Array(text.utf8).withUnsafeBytes { try FileSystem.writeAll(fd, $0, path: path) }
        guard SystemCalls.fsync(fd, path: path) == 0 else { throw FileSystem.ioError(path, "sync the journal") }
        try FileSystem.syncDirectory(directory)
    }

    /// The file names a journal lists. A journal cut short (a kill while it
    /// was written, which is before any rename) lists every vault file: none
    /// of them was replaced, so recovery undoes nothing but the links.
    /// - Throws: `.io` for a journal that cannot be read or is not one keyshelf wrote.
    private static func readJournal(_ path: String) throws -> [String] {
        guard let data = FileManager.default.contents(atPath: path) else { throw FileSystem.ioError(path, "read the journal") }
        let text = String(decoding: data, as: UTF8.self)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let names = lines.dropFirst().dropLast()
        let isName = { (name: String) in Store.allCases.contains { $0.fileName == name } }
        if text.hasSuffix("\n"), lines.first == journalTitle, !names.isEmpty, names.allSatisfy(isName) { return Array(names) }
        let written = journalTitle + "\n" + Store.allCases.map { $0.fileName + "\n" }.joined()
        guard (journalTitle + "\n").hasPrefix(text) || text.hasPrefix(journalTitle + "\n") && text.count < written.count else {
            throw VaultError(.io, file: path, reason: "is not a journal of `keyshelf passwd`; move it aside and open the vault again")
        }
        return Store.allCases.map(\.fileName)
    }
}
