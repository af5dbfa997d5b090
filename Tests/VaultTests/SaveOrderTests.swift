import Foundation
import Testing
import KeyshelfCrypto
@testable import KeyshelfVault

/// The order of a save's system calls, seen through the storage layer's
/// seam (`SystemCallMock`): the kill tests cannot see it, because a killed
/// process loses no page cache, so a missing or late `fsync` passes them.
@Suite struct SaveOrderTests {
    /// `trace` with paths relative to `root` (`.` for the root itself),
    /// temporary files as `NAME.tmp` and consecutive repeats (a write in
    /// several calls) collapsed, from the first call `from` accepts.
    static func steps(_ trace: [SystemCall], root: String, from start: (SystemCall) -> Bool = { _ in true }) -> [String] {
        func name(_ path: String) -> String {
            var p = path == root ? "." : path.hasPrefix(root + "/") ? String(path.dropFirst(root.count + 1)) : path
            if p.hasSuffix(".tmp"), p.hasPrefix(".") { p = String(p.dropFirst().split(separator: ".").prefix(2).joined(separator: ".")) + ".tmp" }
            return p
        }
        var out: [String] = []
        for call in trace.drop(while: { !start($0) }) {
            let step = call.description(path: name)
            if out.last != step { out.append(step) }
        }
        return out
    }

    static func isCreate(_ call: SystemCall) -> Bool {
        if case .create = call { true } else { false }
    }

    /// The backups directory's files and their bytes.
    static func backups(_ vault: TemporaryVault) throws -> [String: [UInt8]] {
        var out = [String: [UInt8]]()
        for name in try FileManager.default.contentsOfDirectory(atPath: vault.path + "/backups") {
            out[name] = try readBytes(vault.path + "/backups/" + name)
        }
        return out
    }

    /// A vault whose local store was saved whole four times (three backups).
    static func savedVault() throws -> (TemporaryVault, VaultSession) {
        let vault = TemporaryVault()
        let session = try vault.directory.create(password: testPassword, limits: .minimum)
        for n in 1...4 { try session.modify { $0.local = [sampleItem(n)] } }
        return (vault, session)
    }

    @Test func aWholeFileSaveWritesSyncsChecksLinksRenamesSyncsTheDirectoryThenRotates() throws {
        let (vault, session) = try Self.savedVault()
        defer { vault.cleanUp() }
        let mock = SystemCallMock()
        // Another item in the place of the only one, not an edit in place (which appends).
        try mock.run { try session.modify { $0.local = [sampleItem(5)] } }
        #expect(Self.steps(mock.trace, root: vault.path, from: Self.isCreate) == [
            "create local.vault.tmp", "write local.vault.tmp", "fsync local.vault.tmp",
            "examine local.vault",
            "unlink backups/local.pending.bak", "link local.vault backups/local.pending.bak",
            "rename local.vault.tmp local.vault", "fsync .",
            "rename backups/local.2.bak backups/local.3.bak", "rename backups/local.1.bak backups/local.2.bak",
            "rename backups/local.pending.bak backups/local.1.bak",
        ])
    }

    @Test func anAppendWritesTheAppendixSyncsThenTheHeaderAndSyncs() throws {
        let vault = TemporaryVault()
        defer { vault.cleanUp() }
        let session = try vault.directory.create(password: testPassword, limits: .minimum)
        let mock = SystemCallMock()
        #expect(try mock.run { try session.add(to: .shared) { _ in sampleItem(1) } })
        let steps = Self.steps(mock.trace, root: vault.path).filter { !$0.hasPrefix("examine") }
        #expect(steps == ["write shared.vault", "fdatasync shared.vault", "write shared.vault", "fdatasync shared.vault"])
    }

    @Test func aFailedDirectorySyncAfterTheRenameIsAWarningAndLeavesTheBackupsAlone() throws {
        let (vault, session) = try Self.savedVault()
        defer { vault.cleanUp() }
        let warnings = Locked<[VaultWarning]>([])
        session.warningHandler = { warning in warnings.withLock { $0.append(warning) } }
        let before = try Self.backups(vault)
        let mock = SystemCallMock { call, _ in call == .fsync(vault.path) ? EIO : nil }
        try mock.run { try session.modify { $0.local = [sampleItem(9)] } }
        #expect(mock.trace.contains(.fsync(vault.path)), "the directory sync was tried")
        let said = warnings.withLock { $0 }
        #expect(said.count == 1)
        #expect(said.first?.file == vault.path)
        #expect(said.first?.reason.contains("the change is saved, but the directory could not be synced") == true)
        #expect(said.first?.reason.contains(String(cString: strerror(EIO))) == true)
        #expect(try Self.backups(vault) == before, "backups untouched, no pending backup left")
        #expect(try vault.directory.unlock(password: testPassword).contents().local == [sampleItem(9)])
    }

    @Test func aBackupThatCannotRotateIsAWarningAndDoesNotStopLaterSaves() throws {
        let (vault, session) = try Self.savedVault()
        defer { vault.cleanUp() }
        let warnings = Locked<[VaultWarning]>([])
        session.warningHandler = { warning in warnings.withLock { $0.append(warning) } }
        // As an immutable backups/local.1.bak (chattr +i) refuses to be renamed.
        let one = vault.path + "/backups/local.1.bak"
        let mock = SystemCallMock { call, _ in
            if case .rename(one, _) = call { return EPERM }
            return nil
        }
        try mock.run {
            try session.modify { $0.local = [sampleItem(9)] }
            try session.modify { $0.local = [sampleItem(10)] }
        }
        let said = warnings.withLock { $0 }
        #expect(said.count == 2)
        #expect(said.allSatisfy { $0.reason.contains("the backups could not be rotated") && $0.reason.contains("local.pending.bak") })
        #expect(try vault.directory.unlock(password: testPassword).contents().local == [sampleItem(10)])
    }

    @Test func aFileSizeLimitIsAnErrorThatLeavesNoTemporaryFile() throws {
        let (vault, session) = try Self.savedVault()
        defer { vault.cleanUp() }
        let current = try readBytes(vault.file(.local))
        let mock = SystemCallMock { call, _ in
            if case .write(let path) = call, path.hasSuffix(".tmp") { return EFBIG }
            return nil
        }
        do {
            try mock.run { try session.modify { $0.local = [sampleItem(9)] } }
            Issue.record("saved past the file size limit")
        } catch let error as VaultError {
            #expect(error.code == .io)
            #expect(error.reason.contains("ulimit -f"))
        }
        #expect(try readBytes(vault.file(.local)) == current)
        #expect(try FileManager.default.contentsOfDirectory(atPath: vault.path).allSatisfy { !$0.hasSuffix(".tmp") })
    }
}

/// A value guarded by a lock, for a warning handler's record.
final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value
    init(_ value: Value) { self.value = value }
    func withLock<T>(_ body: (inout Value) -> T) -> T { lock.withLock { body(&value) } }
}
