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
        VaultError(.io, file: path, reason: "cannot \(what): \(errorText(code))")
    }

    /// The identity of the file at `path`, or nil when it does not exist.
    static func identity(of path: String) throws -> FileIdentity? {
        var s = stat()
        if stat(path, &s) == 0 { return FileIdentity(s) }
        if errno == ENOENT { return nil }
        throw ioError(path, "examine the file")
    }

    /// Files larger than this (2 GiB, some 13 million credentials) are not
    /// loaded: a path pointing at some huge file must not exhaust memory.
    static let maximumVaultByteCount = 2 << 30

    /// The whole file and the identity of the version read, or nil when absent.
    /// - Throws: `.notAVault` or `.damaged` for a file above `maximumVaultByteCount`; `.io`.
    static func read(_ path: String) throws -> (bytes: [UInt8], identity: FileIdentity)? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        if fd < 0 {
            if errno == ENOENT { return nil }
            throw ioError(path, "open the file")
        }
        defer { close(fd) }
        var s = stat()
        guard fstat(fd, &s) == 0 else { throw ioError(path, "examine the file") }
        var size = Int(s.st_size)
        let tooLarge = size > maximumVaultByteCount
        if tooLarge { size = VaultHeader.magic.count }
        var bytes = [UInt8](repeating: 0, count: size)
        var done = 0
        while done < size {
            let n = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + done, size - done, off_t(done)) }
            if n < 0 {
                if errno == EINTR { continue }
                throw ioError(path, "read the file")
            }
            if n == 0 { break }
            done += n
        }
        // A file that shrank while being read is reported by the length checks.
        if done < size { bytes.removeSubrange(done...) }
        if tooLarge {
            guard bytes == VaultHeader.magic else {
                throw VaultError(.notAVault, file: path, reason: "is not a keyshelf vault (unknown file signature)")
            }
            throw VaultError(.damaged, file: path, reason: "is \(s.st_size) bytes, larger than any vault; restore it from backups/ or your sync copy")
        }
        return (bytes, FileIdentity(s))
    }

    /// Creates `path` as a directory with mode 0700 (parents too), unless it exists.
    static func makeDirectory(_ path: String) throws {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else {
                throw VaultError(.io, file: path, reason: "is not a directory")
            }
            return
        }
        do {
            try FileManager.default.createDirectory(
                atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw VaultError(.io, file: path, reason: "cannot create the vault directory: \(error.localizedDescription)")
        }
    }

    /// fsync of a directory, so a rename inside it survives a crash.
    static func syncDirectory(_ path: String) throws {
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw ioError(path, "open the directory") }
        defer { close(fd) }
        guard fsync(fd) == 0 else { throw ioError(path, "sync the directory") }
    }

    static func writeAll(_ fd: Int32, _ bytes: [UInt8], path: String) throws {
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + done, bytes.count - done) }
            if n < 0 {
                if errno == EINTR { continue }
                throw ioError(path, "write the file")
            }
            done += n
        }
    }
}
