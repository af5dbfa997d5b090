import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// What identifies one version of a file on disk: a rename, an edit in place
/// or a copy over it changes at least one of these.
struct FileIdentity: Equatable, Sendable {
    var device: UInt64
    var inode: UInt64
    var byteCount: Int64
    var modified: timespec
    var changed: timespec

    init(_ s: stat) {
        device = UInt64(s.st_dev)
        inode = UInt64(s.st_ino)
        byteCount = Int64(s.st_size)
        modified = s.st_mtim
        changed = s.st_ctim
    }

    static func == (a: FileIdentity, b: FileIdentity) -> Bool {
        a.device == b.device && a.inode == b.inode && a.byteCount == b.byteCount
            && a.modified.tv_sec == b.modified.tv_sec && a.modified.tv_nsec == b.modified.tv_nsec
            && a.changed.tv_sec == b.changed.tv_sec && a.changed.tv_nsec == b.changed.tv_nsec
    }
}

/// The few system calls the vault needs, each failure turned into a `VaultError`.
enum FileSystem {
    static func errorText(_ code: Int32 = errno) -> String {
        String(cString: strerror(code))
    }

    static func ioError(_ path: String, _ what: String, _ code: Int32 = errno) -> VaultError {
        VaultError(.io, file: path, reason: "cannot \(what): \(errorText(code))\(advice(code))")
    }

    /// What to do about the failures a user can fix, for an error message.
    private static func advice(_ code: Int32) -> String {
        switch code {
        case EFBIG: " (the file size limit, `ulimit -f`, is below the vault file's size; raise it and try again)"
        case ENOSPC, EDQUOT: " (free some disk space and try again)"
        default: ""
        }
    }

    /// The identity of the file at `path` itself (a symbolic link is not
    /// followed), or nil when it does not exist.
    /// - Throws: `.io` naming `path` and the system's reason (permission denied, not a directory, …).
    static func identity(of path: String) throws -> FileIdentity? {
        var s = stat()
        if SystemCalls.perform(.examine(path), { lstat(path, &s) }) == 0 { return FileIdentity(s) }
        if errno == ENOENT { return nil }
        throw ioError(path, "examine the file")
    }

    /// Throws when `path` is a symbolic link (dangling or not); does nothing
    /// when it is anything else or absent.
    /// - Throws: `.io` (`symbolicLinkError`) for a link; `.io` when `path` cannot be examined.
    static func refuseSymbolicLink(_ path: String) throws {
        var s = stat()
        if lstat(path, &s) == 0 {
            if s.st_mode & S_IFMT == S_IFLNK { throw symbolicLinkError(path) }
            return
        }
        if errno == ENOENT { return }
        throw ioError(path, "examine the file")
    }

    /// Why a vault file may not be a symbolic link: a save renames a new file
    /// over the path, which would replace the link and leave its target stale
    /// (docs/vault-format.md, "The vault directory").
    static func symbolicLinkError(_ path: String) -> VaultError {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let n = readlink(path, &buffer, buffer.count - 1)
        let target = n > 0 ? " (to \(String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)))" : ""
        return VaultError(.io, file: path, reason: "is a symbolic link\(target); keyshelf refuses linked vault files, because a save replaces the file atomically, which would replace the link and leave its target stale. Point --vault (or $KEYSHELF_VAULT) at the directory holding the real file instead")
    }

    /// Files larger than this (2 GiB, some 13 million credentials) are not
    /// loaded: a path pointing at some huge file must not exhaust memory.
    static let maximumVaultByteCount = 2 << 30

    /// Reads a vault file: its header first, then the rest only when the
    /// file's size is one the header allows (`VaultHeader.announcesSize`),
    /// so a file of the wrong size costs one header read. Opens without following a symbolic link
    /// and without blocking (a FIFO), and reads regular files only.
    /// - Returns: the bytes read (the whole file, or only its first
    ///   `VaultHeader.byteCount` bytes when its size disagrees with the header;
    ///   `identity.byteCount` is the size on disk, for the header's length
    ///   checks) and the identity of the version read; nil when absent.
    /// A read that overlaps a write (the file's identity changes meanwhile) is
    /// done again, the fifth time under the directory's shared lock.
    /// - Throws: `.io` for a symbolic link, a file that is not a regular file,
    ///   or a failed system call; `.notAVault` or `.damaged` for a file above
    ///   `maximumVaultByteCount`; `.changedOnDisk` when the file kept changing
    ///   (a program that ignores the lock writing it).
    /// - Parameter examined: called after each attempt's `fstat`, before its
    ///   reads; a test changes the file there.
    static func read(_ path: String, examined: () -> Void = {}) throws -> (bytes: [UInt8], identity: FileIdentity)? {
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC)
        if fd < 0 {
            let code = errno
            if code == ENOENT { return nil }
            if code == ELOOP { try refuseSymbolicLink(path) }
            throw ioError(path, "open the file", code)
        }
        defer { close(fd) }
        // Readers take no lock, and an append grows the file and then rewrites
        // its header in place: a read that overlapped one (the file's identity
        // changed while it ran) is done again, so size and header agree.
        func settledRead() throws -> (bytes: [UInt8], identity: FileIdentity)? {
            let read = try read(fd, path: path, examined: examined)
            var s = stat()
            guard fstat(fd, &s) == 0 else { throw ioError(path, "examine the file") }
            return FileIdentity(s) == read.identity ? read : nil
        }
        for _ in 0..<4 {
            if let read = try settledRead() { return read }
        }
        // Writers kept changing it (a slow read, a stream of adds): once more
        // under the shared lock, which no keyshelf writer holds meanwhile.
        var locked: Result<(bytes: [UInt8], identity: FileIdentity)?, Error> = .success(nil)
        _ = try? LockFile.withSharedLock(directory: (path as NSString).deletingLastPathComponent, timeout: 2) {
            locked = Result { try settledRead() }
        }
        if let read = try locked.get() { return read }
        throw VaultError(.changedOnDisk, file: path, reason: "kept changing while it was read (another program is writing it); nothing was changed — try again")
    }

    /// The first `VaultHeader.byteCount` bytes of the file at `path` when it
    /// is still the version `expected` (checked after the read); nil when it
    /// is not, is absent, or cannot be read (the caller then reads it whole).
    static func header(_ path: String, expected: FileIdentity) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var s = stat()
        guard let bytes = try? readAt(fd, offset: 0, count: VaultHeader.byteCount, path: path),
              fstat(fd, &s) == 0, FileIdentity(s) == expected else { return nil }
        return bytes
    }

    private static func read(_ fd: Int32, path: String, examined: () -> Void) throws -> (bytes: [UInt8], identity: FileIdentity) {
        var s = stat()
        guard fstat(fd, &s) == 0 else { throw ioError(path, "examine the file") }
        examined()
        guard s.st_mode & S_IFMT == S_IFREG else {
            throw VaultError(.io, file: path, reason: "is \(fileTypeName(s.st_mode)), not a regular file; a vault file must be a regular file — move it aside, or point --vault at the directory holding the real vault")
        }
        let size = Int(s.st_size)
        var bytes = try readAt(fd, offset: 0, count: min(size, VaultHeader.byteCount), path: path)
        if size > maximumVaultByteCount {
            guard bytes.prefix(VaultHeader.magic.count).elementsEqual(VaultHeader.magic) else {
                throw VaultError(.notAVault, file: path, reason: "is not a keyshelf vault (unknown file signature)")
            }
            throw VaultError(.damaged, file: path, reason: "is \(s.st_size) bytes, larger than any vault; \(VaultError.restoreAdvice)")
        }
        if bytes.count == VaultHeader.byteCount, size > VaultHeader.byteCount {
            if bytes.withUnsafeBytes({ VaultHeader.announcesSize($0, fileByteCount: size) }) {
                // The payload is read behind the header in one buffer of the file's size (no second copy).
                bytes = try readAt(fd, offset: 0, count: size, path: path)
            }
        }
        return (bytes, FileIdentity(s))
    }

    /// Up to `count` bytes from `offset`; fewer when the file shrank meanwhile
    /// (the header's length checks then report it).
    private static func readAt(_ fd: Int32, offset: Int, count: Int, path: String) throws -> [UInt8] {
        try [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            while initialized < count {
                let n = pread(fd, buffer.baseAddress! + initialized, count - initialized, off_t(offset + initialized))
                if n < 0 {
                    if errno == EINTR { continue }
                    throw ioError(path, "read the file")
                }
                if n == 0 { break }
                initialized += n
            }
        }
    }

    /// "a directory", "a FIFO", … for an error message.
    static func fileTypeName(_ mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFDIR: "a directory"
        case S_IFIFO: "a FIFO (named pipe)"
        case S_IFCHR: "a character device"
        case S_IFBLK: "a block device"
        case S_IFSOCK: "a socket"
        case S_IFLNK: "a symbolic link"
        default: "a special file"
        }
    }

    /// Creates `path` as a directory with mode 0700 (parents too). An existing
    /// directory must belong to this user (its owner can replace any file in
    /// it, as OpenSSH's `StrictModes` reasons); it is then set to mode 0700
    /// (`keyshelf init` into a directory made by `mkdir`). Another user's
    /// directory is refused whatever its mode, before anything is created or changed.
    /// - Throws: `.io` naming `path`: not a directory, another user's directory
    ///   (naming its owner), a failed system call.
    static func makeDirectory(_ path: String) throws {
        var s = stat()
        if stat(path, &s) != 0 {
            guard errno == ENOENT else { throw ioError(path, "examine the vault directory") }
            do {
                try FileManager.default.createDirectory(
                    atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            } catch {
                throw VaultError(.io, file: path, reason: "cannot create the vault directory: \(error.localizedDescription)")
            }
            guard stat(path, &s) == 0 else { throw ioError(path, "examine the vault directory") }
        }
        guard s.st_mode & S_IFMT == S_IFDIR else {
            throw VaultError(.io, file: path, reason: "is not a directory")
        }
        guard s.st_uid == geteuid() else {
            throw VaultError(.io, file: path, reason: "belongs to \(userDescription(s.st_uid)), not to you (\(userDescription(geteuid()))), mode \(String(s.st_mode & 0o7777, radix: 8)); its owner could replace the vault files — choose a directory of your own with --vault")
        }
        guard s.st_mode & 0o077 != 0 else { return }
        guard chmod(path, 0o700) == 0 else { throw ioError(path, "make the vault directory private (mode 0700)") }
    }

    /// "uid 65534 (nobody)", or "uid 65534" when the user database has no name for it.
    static func userDescription(_ uid: uid_t) -> String {
        var entry = passwd()
        var result: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 4096)
        guard getpwuid_r(uid, &entry, &buffer, buffer.count, &result) == 0, let found = result, let name = found.pointee.pw_name else {
            return "uid \(uid)"
        }
        return "uid \(uid) (\(String(cString: name)))"
    }

    /// fsync of a directory, so a rename inside it survives a crash.
    static func syncDirectory(_ path: String) throws {
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw ioError(path, "open the directory") }
        defer { close(fd) }
        guard SystemCalls.fsync(fd, path: path) == 0 else { throw ioError(path, "sync the directory") }
    }

    /// Writes all of `bytes` to `fd` at its position, or at byte `offset`
    /// (`pwrite`, the position unchanged), retrying short writes and `EINTR`.
    /// - Throws: `.io` naming `path`.
    static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, at offset: Int? = nil, path: String) throws {
        var done = 0
        while done < bytes.count {
            let n = SystemCalls.perform(.write(path)) {
                offset.map { pwrite(fd, bytes.baseAddress! + done, bytes.count - done, off_t($0 + done)) }
                    ?? write(fd, bytes.baseAddress! + done, bytes.count - done)
            }
            if n < 0 {
                if errno == EINTR { continue }
                throw ioError(path, "write the file")
            }
            done += n
        }
    }
}
