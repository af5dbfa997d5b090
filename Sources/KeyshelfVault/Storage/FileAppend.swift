#if canImport(Glibc)
import Glibc
#endif

/// Growing a v2 vault file in place by one appendix (docs/vault-format.md,
/// "Appendices"): the appendix is written after the announced payload and
/// synced, and only then the header that announces it. A crash in between
/// leaves bytes the header does not announce, which readers ignore.
enum FileAppend {
    /// Writes `appendix` at `offset` (the end of the announced payload),
    /// `fdatasync`, then the bytes where `header` differs from `oldHeader`
    /// (the payload length and checksum, bytes 120..<144: the commit is one
    /// small write inside the first disk sector), `fdatasync`, when the file
    /// is still the version `expected`. Bytes an interrupted append left
    /// after `offset` are cut off first. On a failure the old header bytes
    /// are put back and the file cut to `offset` again.
    /// - Returns: the identity of the grown file; nil, with nothing written,
    ///   when the file has more than one hard link (another name, such as a
    ///   backup made by hand, would change with it) or may not be written in
    ///   place (its mode, an immutable flag): replacing it may still work.
    /// - Throws: `VaultError.changedOnDisk` when the file is gone or no
    ///   longer `expected`; `.io` for a symbolic link or a failed system call.
    static func append(_ appendix: [UInt8], at offset: Int, header: [UInt8], oldHeader: [UInt8], to path: String, expected: FileIdentity) throws -> FileIdentity? {
        let fd = open(path, O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        if fd < 0 {
            let code = errno
            if code == ENOENT { throw AtomicFile.changedOnDisk(path) }
            if code == ELOOP { try FileSystem.refuseSymbolicLink(path) }
            if code == EACCES || code == EPERM { return nil }
            throw FileSystem.ioError(path, "open the file", code)
        }
        defer { close(fd) }
        var s = stat()
        guard fstat(fd, &s) == 0 else { throw FileSystem.ioError(path, "examine the file") }
        guard FileIdentity(s) == expected else { throw AtomicFile.changedOnDisk(path) }
        guard s.st_nlink == 1 else { return nil }
        do {
            if Int(s.st_size) > offset, SystemCalls.ftruncate(fd, off_t(offset), path: path) != 0 { throw FileSystem.ioError(path, "cut off an unfinished append") }
            try appendix.withUnsafeBytes { try FileSystem.writeAll(fd, $0, at: offset, path: path) }
            guard SystemCalls.fdatasync(fd, path: path) == 0 else { throw FileSystem.ioError(path, "sync the file") }
            let changed = (header.indices.first { header[$0] != oldHeader[$0] } ?? header.count)..<header.count
            do {
                try header[changed].withUnsafeBytes { try FileSystem.writeAll(fd, $0, at: changed.lowerBound, path: path) }
                guard SystemCalls.fdatasync(fd, path: path) == 0 else { throw FileSystem.ioError(path, "sync the file") }
            } catch {
                try? oldHeader[changed].withUnsafeBytes { try FileSystem.writeAll(fd, $0, at: changed.lowerBound, path: path) }
                throw error
            }
        } catch {
            _ = SystemCalls.ftruncate(fd, off_t(offset), path: path)
            _ = SystemCalls.fdatasync(fd, path: path)
            throw error
        }
        // Committed: should fstat fail, the identity from before differs from the disk's, so the file is read again.
        _ = fstat(fd, &s)
        return FileIdentity(s)
    }
}
