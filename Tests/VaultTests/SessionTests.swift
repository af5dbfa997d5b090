import Foundation
import Testing
import KeyshelfCrypto
@testable import KeyshelfVault

@Suite struct SessionTests {
    @Test func filesAreCreatedPrivate() throws {
        let vault = TemporaryVault()
        defer { vault.cleanUp() }
        let session = try vault.directory.create(password: testPassword, limits: .minimum)
        try session.modify { $0.local.append(sampleItem(1)) }
        // Not an append (that grows the file in place): the file is replaced and a backup kept.
        try session.modify { $0.local = [sampleItem(2)] }
        func mode(_ path: String) throws -> Int {
            (try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.intValue ?? -1
        }
        #expect(try mode(vault.path) == 0o700)
        #expect(try mode(vault.file(.local)) == 0o600)
        #expect(try mode(vault.file(.shared)) == 0o600)
        #expect(try mode(vault.path + "/keyshelf.lock") == 0o600)
        #expect(try mode(vault.path + "/backups") == 0o700)
        #expect(try mode(vault.path + "/backups/local.1.bak") == 0o600)
    }

    @Test func bothFilesShareOneKeyDerivation() throws {
        let vault = TemporaryVault()
        defer { vault.cleanUp() }
        _ = try vault.directory.create(password: testPassword, limits: .minimum)
        let local = try readBytes(vault.file(.local))
        let shared = try readBytes(vault.file(.shared))
        // Same limits and salt (bytes 16..<48): one Argon2id run unwraps both keys.
        #expect(local[16..<48] == shared[16..<48])
        #expect(local[72..<120] != shared[72..<120])
    }

    @Test func changingThePasswordKeepsDataAndReSealsBothPayloadsUnderNewKeys() throws {
        let vault = TemporaryVault()
        defer { vault.cleanUp() }
        let session = try vault.directory.create(password: testPassword, limits: .minimum)
        try session.modify { contents in
            contents.local = [sampleItem(1)]
            contents.shared = [sampleItem(2), sampleItem(3)]
        }
        let before = try Store.allCases.map { try readBytes(vault.file($0)) }
        let newPassword = Secret(utf8: "a new and longer master password")
        let newLimits = PasswordHashLimits(opslimit: 2, memlimitBytes: 16 * 1024)
        try session.changePassword(to: newPassword, limits: newLimits)
        let after = try Store.allCases.map { try readBytes(vault.file($0)) }
        for (old, new) in zip(before, after) {
            // Issue 14 item 5: new vault keys, so the payloads are sealed again.
            #expect(old[144...] != new[144...], "payload not re-encrypted")
            #expect(old[0..<144] != new[0..<144])
        }
        #expect(session.limits == newLimits)
        #expect(throws: VaultError(.wrongPassword, file: "", reason: "")) {
            try vault.directory.unlock(password: testPassword)
        }
        let reopened = try vault.directory.unlock(password: newPassword)
        #expect(reopened.limits == newLimits)
        let contents = try reopened.contents()
        #expect(contents.local == [sampleItem(1)])
        #expect(contents.shared == [sampleItem(2), sampleItem(3)])
        // The session that changed it keeps working.
        try session.modify { $0.local.append(sampleItem(4)) }
        #expect(try reopened.contents().local.count == 2)
    }

    @Test func thisDeviceOnlyItemsNeverReachTheSharedFile() throws {
        let vault = TemporaryVault()
        defer { vault.cleanUp() }
        let session = try vault.directory.create(password: testPassword, limits: .minimum)
        try session.modify { $0.shared = [sampleItem(1)] }
        let before = try readBytes(vault.file(.shared))
        for accessible in Accessible.allCases where accessible.isThisDeviceOnly {
            do {
                try session.modify { $0.shared.append(sampleItem(2, accessible: accessible)) }
                Issue.record("\(accessible) item saved to shared.vault")
            } catch let error as VaultError {
                #expect(error.file == vault.file(.shared))
                #expect(error.reason.contains("\(accessible)"))
            }
        }
        #expect(try readBytes(vault.file(.shared)) == before)
        try session.modify { $0.local.append(sampleItem(2, accessible: .whenPasscodeSetThisDeviceOnly)) }
        #expect(try session.contents().local.count == 1)
    }

    struct Abort: Error {}

    @Test func aThrowingBodyWritesNothing() throws {
        let vault = TemporaryVault()
        defer { vault.cleanUp() }
        let session = try vault.directory.create(password: testPassword, limits: .minimum)
        try session.modify { $0.local = [sampleItem(1)] }
        let before = try Store.allCases.map { try readBytes(vault.file($0)) }
        #expect(throws: Abort.self) {
            try session.modify { contents in
                contents.local.removeAll()
                contents.shared.append(sampleItem(2))
                throw Abort()
            }
        }
        #expect(try Store.allCases.map { try readBytes(vault.file($0)) } == before)
        #expect(try session.contents().local == [sampleItem(1)])
    }

    @Test func onlyChangedFilesAreSaved() throws {
        let vault = TemporaryVault()
        defer { vault.cleanUp() }
        let session = try vault.directory.create(password: testPassword, limits: .minimum)
        let shared = try readBytes(vault.file(.shared))
        try session.modify { $0.local.append(sampleItem(1)) }
        #expect(try readBytes(vault.file(.shared)) == shared)
        let result = try session.modify { $0.local.count }
        #expect(result == 1)
    }

    @Test func aFileReplacedDuringAWriteIsNotOverwritten() throws {
        let vault = TemporaryVault()
        defer { vault.cleanUp() }
        let session = try vault.directory.create(password: testPassword, limits: .minimum)
        let other = try vault.directory.unlock(password: testPassword)
        try other.modify { $0.shared = [sampleItem(1)] }
        let pulled = try readBytes(vault.file(.shared))
        try session.modify { $0.shared = [sampleItem(2)] }
        do {
            try session.modify { contents in
                // Something outside the lock (a `git pull`) replaces the file meanwhile.
                try writeBytes(pulled, to: vault.file(.shared) + ".new")
                rename(vault.file(.shared) + ".new", vault.file(.shared))
                contents.shared.append(sampleItem(3))
            }
            Issue.record("overwrote a file that changed on disk")
        } catch let error as VaultError {
            #expect(error.code == .changedOnDisk)
            #expect(error.file == vault.file(.shared))
        }
        #expect(try readBytes(vault.file(.shared)) == pulled)
        // The next read picks up the replaced file.
        #expect(try session.contents().shared == [sampleItem(1)])
    }

    @Test func contentsSeeChangesSavedByAnotherSession() throws {
        let vault = TemporaryVault()
        defer { vault.cleanUp() }
        let a = try vault.directory.create(password: testPassword, limits: .minimum)
        let b = try vault.directory.unlock(password: testPassword)
        #expect(try a.contents().shared.isEmpty)
        try b.modify { $0.shared = [sampleItem(1)] }
        #expect(try a.contents().shared == [sampleItem(1)])
        try a.modify { $0.shared.append(sampleItem(2)) }
        #expect(try b.contents().shared == [sampleItem(1), sampleItem(2)])
    }

    @Test func deferredRotationLeavesThePendingBackupUntilSettled() throws {
        let vault = TemporaryVault()
        defer { vault.cleanUp() }
        let session = try vault.directory.create(password: testPassword, limits: .minimum)
        session.defersBackupRotation = true
        try session.modify { $0.local = [sampleItem(1)] }
        try session.modify { $0.local = [sampleItem(3)] }
        let before = try readBytes(vault.file(.local))
        try session.modify { $0.local = [sampleItem(2)] }
        func names() throws -> [String] { try FileManager.default.contentsOfDirectory(atPath: vault.path + "/backups").sorted() }
        // The second save settled the first one's pending backup and left its own.
        #expect(try names() == ["local.1.bak", "local.pending.bak"])
        #expect(try readBytes(vault.path + "/backups/local.pending.bak") == before)
        try session.settleBackups()
        #expect(try names() == ["local.1.bak", "local.2.bak"])
        #expect(try readBytes(vault.path + "/backups/local.1.bak") == before)
        try session.settleBackups()
        #expect(try names() == ["local.1.bak", "local.2.bak"], "nothing pending: nothing moves")
    }

    @Test func backupsKeepThreePreviousVersions() throws {
        let vault = TemporaryVault()
        defer { vault.cleanUp() }
        let session = try vault.directory.create(password: testPassword, limits: .minimum)
        for n in 1...5 { try session.modify { $0.local = [sampleItem(n)] } }
        let names = try FileManager.default.contentsOfDirectory(atPath: vault.path + "/backups").sorted()
        #expect(names == ["local.1.bak", "local.2.bak", "local.3.bak"])
        // local.1.bak is the version before the last save, and opens as a vault.
        let restored = TemporaryVault()
        defer { restored.cleanUp() }
        try FileManager.default.createDirectory(atPath: restored.path, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: vault.path + "/backups/local.1.bak", toPath: restored.file(.local))
        try FileManager.default.copyItem(atPath: vault.file(.shared), toPath: restored.file(.shared))
        #expect(try restored.directory.unlock(password: testPassword).contents().local == [sampleItem(4)])
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: vault.path).filter { $0.hasSuffix(".tmp") }
        #expect(leftovers.isEmpty)
    }

    @Test func verifyPasswordAndLock() throws {
        let vault = TemporaryVault()
        defer { vault.cleanUp() }
        let session = try vault.directory.create(password: testPassword, limits: .minimum)
        #expect(session.verifyPassword(testPassword))
        #expect(!session.verifyPassword(Secret(utf8: "guess")))
        session.lock()
        #expect(!session.verifyPassword(testPassword))
        #expect(throws: VaultError(.locked, file: "", reason: "")) { try session.contents() }
        #expect(throws: VaultError(.locked, file: "", reason: "")) { try session.modify { $0.local = [] } }
    }

    @Test func sharedVaultOpensOnItsOwnOnAnotherMachine() throws {
        let home = TemporaryVault()
        defer { home.cleanUp() }
        let session = try home.directory.create(password: testPassword, limits: .minimum)
        try session.modify { contents in
            contents.local = [sampleItem(1, accessible: .whenUnlockedThisDeviceOnly)]
            contents.shared = [sampleItem(2)]
        }
        // A new machine receives shared.vault only (e.g. a git clone), then runs init.
        let laptop = TemporaryVault()
        defer { laptop.cleanUp() }
        try FileManager.default.createDirectory(atPath: laptop.path, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: home.file(.shared), toPath: laptop.file(.shared))
        #expect(throws: VaultError(.wrongPassword, file: "", reason: "")) {
            try laptop.directory.create(password: Secret(utf8: "wrong"), limits: .minimum)
        }
        #expect(!laptop.directory.exists)
        let adopted = try laptop.directory.create(password: testPassword, limits: .interactive)
        #expect(adopted.limits == .minimum)
        #expect(try adopted.contents().shared == [sampleItem(2)])
        #expect(try adopted.contents().local.isEmpty)
        #expect(try laptop.directory.unlock(password: testPassword).contents().shared == [sampleItem(2)])
    }

    @Test func sharedVaultWithAnotherSaltStillOpens() throws {
        let a = TemporaryVault(), b = TemporaryVault()
        defer { a.cleanUp(); b.cleanUp() }
        _ = try a.directory.create(password: testPassword, limits: .minimum)
        try b.directory.create(password: testPassword, limits: .minimum).modify { $0.shared = [sampleItem(5)] }
        try FileManager.default.removeItem(atPath: a.file(.shared))
        try FileManager.default.copyItem(atPath: b.file(.shared), toPath: a.file(.shared))
        let session = try a.directory.unlock(password: testPassword)
        #expect(try session.contents().shared == [sampleItem(5)])
        try session.modify { $0.shared.append(sampleItem(6)) }
        #expect(try b.directory.unlock(password: testPassword).contents().shared == [sampleItem(5)])
        #expect(try a.directory.unlock(password: testPassword).contents().shared.count == 2)
    }

    @Test func resolveFollowsOptionThenEnvironment() {
        #expect(VaultDirectory.resolve(option: "/v", environment: ["KEYSHELF_VAULT": "/e"]).url.path == "/v")
        #expect(VaultDirectory.resolve(option: nil, environment: ["KEYSHELF_VAULT": "/e", "XDG_DATA_HOME": "/x"]).url.path == "/e")
        #expect(VaultDirectory.resolve(option: nil, environment: ["XDG_DATA_HOME": "/x", "HOME": "/h"]).url.path == "/x/keyshelf")
        #expect(VaultDirectory.resolve(option: nil, environment: ["XDG_DATA_HOME": "", "HOME": "/h"]).url.path == "/h/.local/share/keyshelf")
    }

    @Test func errorsMapToStatusAndExitCode() {
        let cases: [(VaultError.Code, Int32, Int32)] = [
            (.wrongPassword, -25293, 5), (.notAVault, -26275, 7), (.unsupportedVersion, -26275, 7),
            (.damaged, -26275, 7), (.truncated, -26275, 7), (.kdfLimitsTooHigh, -26275, 7),
            (.noVault, -25300, 3), (.alreadyExists, -25299, 6), (.changedOnDisk, -50, 1),
            (.locked, -50, 1), (.io, -50, 1),
        ]
        for (code, status, exit) in cases {
            let error = VaultError(code, file: "/v/local.vault", reason: "r")
            #expect(error.status.rawValue == status && error.exitCode == exit, "\(code)")
        }
        #expect(VaultError(.io, file: "/f", reason: "cannot read").description == "/f: cannot read")
    }
}

extension SessionTests {
    @Test func anInterruptedPasswordChangeCanBeRepairedFromTheBackup() throws {
        let vault = TemporaryVault()
        defer { vault.cleanUp() }
        let session = try vault.directory.create(password: testPassword, limits: .minimum)
        try session.modify { $0.shared = [sampleItem(1)] }
        let oldLocal = try readBytes(vault.file(.local))
        try session.changePassword(to: Secret(utf8: "new password"), limits: nil)
        // Simulate a crash after shared.vault was rewritten but before local.vault was.
        try writeBytes(oldLocal, to: vault.file(.local))
        do {
            _ = try vault.directory.unlock(password: testPassword)
            Issue.record("opened with mismatched files")
        } catch let error as VaultError {
            #expect(error.code == .wrongPassword)
            #expect(error.file == vault.file(.shared))
            #expect(error.reason.contains("backups/shared.1.bak"))
        }
        try FileManager.default.removeItem(atPath: vault.file(.shared))
        try FileManager.default.copyItem(atPath: vault.path + "/backups/shared.1.bak", toPath: vault.file(.shared))
        #expect(try vault.directory.unlock(password: testPassword).contents().shared == [sampleItem(1)])
    }

    /// `keyshelf sync` writes its plan's merge only when `modify(since:)`
    /// says the items are those the plan read: a save by another process
    /// in between must make it merge again, or that save would be lost.
    @Test func modifySinceARevisionSeesAnotherProcessesSave() throws {
        let vault = TemporaryVault()
        defer { vault.cleanUp() }
        let session = try vault.directory.create(password: testPassword, limits: .minimum)
        try session.modify { $0.shared = [sampleItem(1)] }
        let revision = session.revision
        let planned = try session.contents().shared
        try session.modify(since: revision) { _, unchanged in #expect(unchanged) }

        let other = try vault.directory.unlock(password: testPassword)
        try other.modify { $0.shared.append(sampleItem(2)) }
        other.lock()
        try session.modify(since: revision) { contents, unchanged in
            #expect(!unchanged)
            #expect(contents.shared.map(\.account) == ["user1@example.com", "user2@example.com"])
            #expect(planned.count == 1)
        }
    }
}
