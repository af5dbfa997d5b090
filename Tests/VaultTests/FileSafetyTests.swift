import Foundation
import Testing
import KeyshelfCrypto
@testable import KeyshelfVault

/// What the vault does with unusual files on disk: links, FIFOs, files of
/// the wrong size, unreadable paths, a held lock, a save that fails.
@Suite struct FileSafetyTests {
    /// The error `body` throws, or nil.
    static func vaultError(_ body: () throws -> Void) -> VaultError? {
        do {
            try body()
            return nil
        } catch {
            return error as? VaultError
        }
    }

    static func isSymbolicLink(_ path: String) -> Bool {
        var s = stat()
        return lstat(path, &s) == 0 && s.st_mode & S_IFMT == S_IFLNK
    }

    @Test func aSymbolicLinkedVaultFileIsRefusedOnOpenAndSaveAndNeverReplaced() throws {
        let vault = try OpenFailureTests.smallVault()
        defer { vault.cleanUp() }
        let elsewhere = TemporaryVault()
        defer { elsewhere.cleanUp() }
        try FileManager.default.createDirectory(atPath: elsewhere.path, withIntermediateDirectories: true)
        let session = try vault.directory.unlock(password: testPassword)
        // shared.vault moved into a synced folder, linked from the vault directory.
        let real = elsewhere.file(.shared)
        try FileManager.default.moveItem(atPath: vault.file(.shared), toPath: real)
        #expect(symlink(real, vault.file(.shared)) == 0)
        let before = try readBytes(real)

        let open = Self.vaultError { _ = try vault.directory.unlock(password: testPassword) }
        #expect(open?.code == .io)
        #expect(open?.exitCode == 1)
        #expect(open?.file == vault.file(.shared))
        #expect(open?.reason.contains("symbolic link") == true)
        #expect(open?.reason.contains("--vault") == true)

        let save = Self.vaultError { try session.modify { $0.shared.append(sampleItem(9)) } }
        #expect(save?.code == .io)
        #expect(save?.file == vault.file(.shared))
        #expect(Self.isSymbolicLink(vault.file(.shared)))
        #expect(try readBytes(real) == before)
        let backups = (try? FileManager.default.contentsOfDirectory(atPath: vault.path + "/backups")) ?? []
        #expect(!backups.contains { Self.isSymbolicLink(vault.path + "/backups/" + $0) })
    }

    @Test func aDanglingLinkIsNeitherNoVaultNorReplacedByCreate() throws {
        let vault = TemporaryVault()
        defer { vault.cleanUp() }
        try FileManager.default.createDirectory(atPath: vault.path, withIntermediateDirectories: true)
        #expect(symlink("/nonexistent-keyshelf-mount/local.vault", vault.file(.local)) == 0)

        #expect(vault.directory.exists)
        #expect(Self.vaultError { _ = try vault.directory.vaultExists() }?.code == .io)
        let open = Self.vaultError { _ = try vault.directory.unlock(password: testPassword) }
        #expect(open?.code == .io)
        #expect(open?.reason.contains("symbolic link") == true)
        let create = Self.vaultError { _ = try vault.directory.create(password: testPassword, limits: .minimum) }
        #expect(create?.code == .io)
        #expect(Self.isSymbolicLink(vault.file(.local)))
        #expect(!FileManager.default.fileExists(atPath: vault.file(.shared)))
    }

    @Test func aPathThatCannotBeExaminedIsAnIOErrorNotNoVault() throws {
        let vault = TemporaryVault()
        defer { vault.cleanUp() }
        // --vault naming a regular file: every path inside it is "not a directory".
        try writeBytes([1, 2, 3], to: vault.path)
        #expect(vault.directory.exists)
        let error = Self.vaultError { _ = try vault.directory.vaultExists() }
        #expect(error?.code == .io)
        #expect(error?.exitCode == 1)
        #expect(error?.file == vault.file(.local))
        #expect(error?.reason.contains(String(cString: strerror(ENOTDIR))) == true)
        #expect(Self.vaultError { _ = try vault.directory.unlock(password: testPassword) }?.code == .io)
    }

    @Test func aFIFOOrDirectoryIsRefusedAsNotARegularFile() throws {
        let vault = try OpenFailureTests.smallVault()
        defer { vault.cleanUp() }
        unlink(vault.file(.shared))
        #expect(mkfifo(vault.file(.shared), 0o600) == 0)
        // A writer end, so that an open that blocks on a FIFO would not hang this test.
        let writer = open(vault.file(.shared), O_RDWR | O_NONBLOCK)
        defer { close(writer) }
        let fifo = Self.vaultError { _ = try vault.directory.unlock(password: testPassword) }
        #expect(fifo?.code == .io)
        #expect(fifo?.file == vault.file(.shared))
        #expect(fifo?.reason.contains("FIFO") == true)
        #expect(fifo?.reason.contains("truncated") == false)

        unlink(vault.file(.shared))
        #expect(mkdir(vault.file(.shared), 0o700) == 0)
        let directory = Self.vaultError { _ = try vault.directory.unlock(password: testPassword) }
        #expect(directory?.code == .io)
        #expect(directory?.reason.contains("not a regular file") == true)
    }

    @Test func aFileLongerThanItsHeaderSaysIsRefusedWithoutReadingThePayload() throws {
        let vault = try OpenFailureTests.smallVault()
        defer { vault.cleanUp() }
        let path = vault.file(.local)
        let size = try readBytes(path).count
        // Sparse, 64 MiB longer than the header announces.
        let fd = open(path, O_WRONLY)
        #expect(fd >= 0)
        #expect(ftruncate(fd, off_t(size + (64 << 20))) == 0)
        close(fd)
        let read = try #require(try FileSystem.read(path))
        #expect(read.bytes.count == VaultHeader.byteCount)
        #expect(read.identity.byteCount == Int64(size + (64 << 20)))
        let error = Self.vaultError { _ = try vault.directory.unlock(password: testPassword) }
        #expect(error?.code == .damaged)
        #expect(error?.reason.contains("\(64 << 20) unexpected bytes") == true)
    }

    @Test func aWriterGivesUpOnAHeldLockAndSaysWhy() throws {
        let vault = try OpenFailureTests.smallVault()
        defer { vault.cleanUp() }
        var directory = vault.directory
        directory.lockTimeout = 0.3
        let session = try directory.unlock(password: testPassword)
        let lockPath = vault.path + "/" + LockFile.name
        let holder = open(lockPath, O_RDWR | O_CLOEXEC)
        #expect(holder >= 0)
        #expect(flock(holder, LOCK_EX) == 0)
        // Released once the writer gave up, or after 3 s, so that a writer that
        // waits without bound finishes (and fails this test) instead of hanging.
        let gaveUp = DispatchSemaphore(value: 0), released = DispatchSemaphore(value: 0)
        Thread {
            _ = gaveUp.wait(timeout: .now() + 3)
            flock(holder, LOCK_UN)
            released.signal()
        }.start()
        let error = Self.vaultError { try session.modify { $0.local.append(sampleItem(9)) } }
        gaveUp.signal()
        released.wait()
        close(holder)
        #expect(error?.code == .io)
        #expect(error?.file == lockPath)
        #expect(error?.reason.contains("another keyshelf process holds the vault lock") == true)
        #expect(try directory.unlock(password: testPassword).contents().local.count == 2)
    }

    @Test func aFailedSaveLeavesTheBackupsAlone() throws {
        let vault = TemporaryVault()
        defer { vault.cleanUp() }
        let session = try vault.directory.create(password: testPassword, limits: .minimum)
        for n in 1...4 { try session.modify { $0.local = [sampleItem(n)] } }
        let backups = vault.path + "/backups"
        func snapshot() throws -> [String: [UInt8]] {
            var out = [String: [UInt8]]()
            for name in try FileManager.default.contentsOfDirectory(atPath: backups) {
                out[name] = try readBytes(backups + "/" + name)
            }
            return out
        }
        let before = try snapshot()
        let current = try readBytes(vault.file(.local))
        let identity = try FileSystem.identity(of: vault.file(.local))
        let failRename = SystemCallMock { call, _ in if case .rename(_, vault.file(.local)) = call { EPERM } else { nil } }
        let error = Self.vaultError {
            _ = try failRename.run {
                try AtomicFile.replace(
                    directory: vault.path, name: Store.local.fileName, header: Array(current[..<VaultHeader.byteCount]),
                    payload: Array(current[VaultHeader.byteCount...]), expected: identity)
            }
        }
        #expect(error?.code == .io)
        #expect(try snapshot() == before)
        #expect(try readBytes(vault.file(.local)) == current)
        // The next save works and rotates as usual.
        try session.modify { $0.local = [sampleItem(5)] }
        let after = try snapshot()
        #expect(after.keys.sorted() == ["local.1.bak", "local.2.bak", "local.3.bak"])
        #expect(after["local.1.bak"] == current)
        #expect(after["local.2.bak"] == before["local.1.bak"])
    }

    @Test func aPendingBackupLeftByAKilledWriterIsSettledByTheNextSave() throws {
        let vault = TemporaryVault()
        defer { vault.cleanUp() }
        let session = try vault.directory.create(password: testPassword, limits: .minimum)
        try session.modify { $0.local = [sampleItem(1)] }
        try session.modify { $0.local = [sampleItem(3)] }
        let backups = Backups(directory: vault.path, name: Store.local.fileName)
        let one = try readBytes(backups.numbered(1))

        // Killed before its rename: the pending backup is still the current file.
        #expect(link(vault.file(.local), backups.pending) == 0)
        let current = try readBytes(vault.file(.local))
        try session.modify { $0.local = [sampleItem(2)] }
        #expect(!FileManager.default.fileExists(atPath: backups.pending))
        #expect(try readBytes(backups.numbered(1)) == current)
        #expect(try readBytes(backups.numbered(2)) == one)

        // Killed after its rename: the pending backup is the replaced version.
        let replaced = try readBytes(backups.numbered(2))
        try writeBytes(replaced, to: backups.pending)
        let latest = try readBytes(vault.file(.local))
        try session.modify { $0.local = [sampleItem(3)] }
        #expect(!FileManager.default.fileExists(atPath: backups.pending))
        #expect(try readBytes(backups.numbered(1)) == latest)
        #expect(try readBytes(backups.numbered(2)) == replaced)
    }

    @Test func createMakesAnExistingOpenDirectoryPrivate() throws {
        let vault = TemporaryVault()
        defer { vault.cleanUp() }
        #expect(mkdir(vault.path, 0o755) == 0)
        #expect(chmod(vault.path, 0o755) == 0)
        _ = try vault.directory.create(password: testPassword, limits: .minimum)
        var s = stat()
        #expect(stat(vault.path, &s) == 0)
        #expect(s.st_mode & 0o777 == 0o700)
    }
}
