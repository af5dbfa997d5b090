import Foundation
import Testing
import KeyshelfCrypto
@testable import KeyshelfVault

/// `changePassword` replaces both files all or nothing (issue 11, item 20):
/// whatever fails or is killed, the vault opens with the old or the new
/// password, and a message that names a backup names the right one.
@Suite struct PasswdTests {
    static let newPassword = Secret(utf8: "correct horse battery staple2")

    /// A vault with an item in each store, and its session.
    static func filledVault() throws -> (TemporaryVault, VaultSession) {
        let vault = TemporaryVault()
        let session = try vault.directory.create(password: testPassword, limits: .minimum)
        try session.modify { $0.local = [sampleItem(1)]; $0.shared = [sampleItem(2)] }
        return (vault, session)
    }

    /// Which password opens the vault with its items intact: 0 the old, 1 the new, nil neither.
    static func openingPassword(_ vault: TemporaryVault) -> Int? {
        for (index, password) in [testPassword, newPassword].enumerated() {
            if let contents = try? vault.directory.unlock(password: password).contents(),
               contents.local == [sampleItem(1)], contents.shared == [sampleItem(2)] { return index }
        }
        return nil
    }

    static func leftovers(_ vault: TemporaryVault) throws -> [String] {
        let top = try FileManager.default.contentsOfDirectory(atPath: vault.path)
            .filter { $0.hasSuffix(".tmp") || $0 == JointReplace.journalName }
        let backups = ((try? FileManager.default.contentsOfDirectory(atPath: vault.path + "/backups")) ?? []).filter { $0.contains("pending") }
        return top + backups
    }

    @Test func passwdWritesBothFilesThenJournalsRenamesBothAndCommitsByRemovingTheJournal() throws {
        let (vault, session) = try Self.filledVault()
        defer { vault.cleanUp() }
        let mock = SystemCallMock()
        try mock.run { try session.changePassword(to: Self.newPassword, limits: nil) }
        #expect(SaveOrderTests.steps(mock.trace, root: vault.path, from: SaveOrderTests.isCreate) == [
            "create shared.vault.tmp", "write shared.vault.tmp", "fsync shared.vault.tmp",
            "create local.vault.tmp", "write local.vault.tmp", "fsync local.vault.tmp",
            "examine shared.vault", "examine local.vault",
            "unlink backups/shared.pending.bak", "link shared.vault backups/shared.pending.bak",
            "unlink backups/local.pending.bak", "link local.vault backups/local.pending.bak",
            "fsync backups",
            "create passwd.journal", "write passwd.journal", "fsync passwd.journal", "fsync .",
            "rename shared.vault.tmp shared.vault", "rename local.vault.tmp local.vault", "fsync .",
            "unlink passwd.journal", "fsync .",
            "rename backups/shared.2.bak backups/shared.3.bak", "rename backups/shared.1.bak backups/shared.2.bak",
            "rename backups/shared.pending.bak backups/shared.1.bak",
            "rename backups/local.2.bak backups/local.3.bak", "rename backups/local.1.bak backups/local.2.bak",
            "rename backups/local.pending.bak backups/local.1.bak",
        ])
        #expect(Self.openingPassword(vault) == 1)
        #expect(try Self.leftovers(vault) == [])
    }

    /// Fails each system call of a `passwd` in turn (ENOSPC, EIO, EFBIG):
    /// an error leaves the old password, a success the new one, never a mix.
    @Test func aFailureAtAnyStepOfPasswdLeavesTheOldOrTheNewPassword() throws {
        let (probe, probeSession) = try Self.filledVault()
        let counter = SystemCallMock()
        try counter.run { try probeSession.changePassword(to: Self.newPassword, limits: nil) }
        probe.cleanUp()
        let count = counter.trace.count
        #expect(count > 20)
        let codes = [ENOSPC, EIO, EFBIG]
        for step in 0..<count {
            let (vault, session) = try Self.filledVault()
            defer { vault.cleanUp() }
            let code = codes[step % codes.count]
            let warnings = Locked<[VaultWarning]>([])
            session.warningHandler = { warning in warnings.withLock { $0.append(warning) } }
            let mock = SystemCallMock { _, index in index == step ? code : nil }
            let failed = (try? mock.run { try session.changePassword(to: Self.newPassword, limits: nil) }) == nil
            let call = mock.trace.count > step ? mock.trace[step].description : "?"
            #expect(Self.openingPassword(vault) == (failed ? 0 : 1), "step \(step) (\(call)) failed: \(failed)")
            // A backup rotation that failed after the commit leaves its pending backup, and says so.
            let said = warnings.withLock { $0 }.map(\.reason).joined()
            #expect(try Self.leftovers(vault).filter { !said.contains($0) } == [], "step \(step) (\(call))")
        }
    }

    /// A failure whose undo fails too (the disk went away mid-passwd): the
    /// error names the one backup to restore, and the next open undoes it.
    @Test func aPasswdThatCannotBeUndoneNamesTheRightBackupAndTheNextOpenRecovers() throws {
        let (vault, session) = try Self.filledVault()
        defer { vault.cleanUp() }
        let pending = vault.path + "/backups/shared.pending.bak"
        let mock = SystemCallMock { call, _ in
            switch call {
            case .rename(_, vault.file(.local)): EIO
            case .rename(pending, vault.file(.shared)): EIO
            default: nil
            }
        }
        do {
            try mock.run { try session.changePassword(to: Self.newPassword, limits: nil) }
            Issue.record("passwd succeeded")
        } catch let error as VaultError {
            #expect(error.code == .io)
            #expect(error.file == vault.file(.shared))
            #expect(error.reason.contains("Restore \(pending) as \(vault.file(.shared))"))
        }
        #expect(FileManager.default.fileExists(atPath: vault.path + "/" + JointReplace.journalName))
        // Doing what the message says gives the old password back.
        let copy = TemporaryVault()
        defer { copy.cleanUp() }
        try FileManager.default.copyItem(atPath: vault.path, toPath: copy.path)
        try FileManager.default.removeItem(atPath: copy.file(.shared))
        try FileManager.default.moveItem(atPath: copy.path + "/backups/shared.pending.bak", toPath: copy.file(.shared))
        try FileManager.default.removeItem(atPath: copy.path + "/" + JointReplace.journalName)
        #expect(Self.openingPassword(copy) == 0)
        // Left alone, the next open undoes it.
        #expect(Self.openingPassword(vault) == 0)
        #expect(try Self.leftovers(vault) == [])
    }

    /// A crash after both renames (the journal still there) keeps the new password.
    @Test func aJournalLeftAfterBothRenamesKeepsTheNewPassword() throws {
        let (vault, session) = try Self.filledVault()
        defer { vault.cleanUp() }
        let journal = vault.path + "/" + JointReplace.journalName
        let mock = SystemCallMock { call, _ in call == .unlink(journal) ? EIO : nil }
        #expect(throws: VaultError.self) { try mock.run { try session.changePassword(to: Self.newPassword, limits: nil) } }
        #expect(Self.openingPassword(vault) == 0, "a failed journal removal is undone in process")
        // As a kill between the last rename and the journal's removal leaves it.
        try session.changePassword(to: Self.newPassword, limits: nil)
        for store in Store.allCases {
            #expect(link(vault.path + "/backups/\(store == .local ? "local" : "shared").1.bak",
                         vault.path + "/backups/\(store == .local ? "local" : "shared").pending.bak") == 0)
        }
        try writeBytes(Array("keyshelf passwd journal 1\nshared.vault\nlocal.vault\n".utf8), to: journal)
        #expect(Self.openingPassword(vault) == 1)
        #expect(try Self.leftovers(vault) == [])
    }

    /// `shared.vault` under another password: the message names the newest
    /// backup that opens with this one, here `shared.pending.bak` (a save
    /// that left its rotation to later), not the older `shared.1.bak`.
    @Test func aSharedFileUnderAnotherPasswordNamesTheBackupThatOpens() throws {
        let (vault, session) = try Self.filledVault()
        defer { vault.cleanUp() }
        session.defersBackupRotation = true
        try session.modify { $0.shared = [sampleItem(3)] }
        let other = TemporaryVault()
        defer { other.cleanUp() }
        _ = try other.directory.create(password: Self.newPassword, limits: .minimum)
        try FileManager.default.removeItem(atPath: vault.file(.shared))
        try FileManager.default.copyItem(atPath: other.file(.shared), toPath: vault.file(.shared))
        do {
            _ = try vault.directory.unlock(password: testPassword)
            Issue.record("opened with mismatched files")
        } catch let error as VaultError {
            #expect(error.code == .wrongPassword)
            #expect(error.reason.contains("restore \(vault.path)/backups/shared.pending.bak as shared.vault"))
        }
    }

    /// Issue 14 item 5: `passwd` seals both payloads under new vault keys,
    /// so an old header (a git commit, a backup) spliced onto a file written
    /// after the change unwraps the old key with the old password, and the
    /// new payload does not authenticate under it.
    @Test func anOldHeaderSplicedOntoTheNewPayloadDoesNotOpenWithTheOldPassword() throws {
        let (vault, session) = try Self.filledVault()
        defer { vault.cleanUp() }
        let before = try Store.allCases.map { try readBytes(vault.file($0)) }
        try session.changePassword(to: Self.newPassword, limits: nil)
        for (store, old) in zip(Store.allCases, before) {
            let new = try readBytes(vault.file(store))
            var header = try old.withUnsafeBytes { try VaultHeader.parse($0, expected: store, path: store.fileName) }
            header.payloadByteCount = UInt64(new.count - VaultHeader.byteCount)
            let spliced = header.serialized() + new[VaultHeader.byteCount...]
            #expect(throws: VaultError(.damaged, file: "", reason: ""), "\(store)") {
                _ = try VaultFile.open(spliced, header: header, vaultKey: try VaultFile.unwrapKey(
                    header: header, passwordKey: try VaultFile.deriveKey(password: testPassword, salt: header.salt, limits: header.limits, path: ""),
                    path: ""), path: "")
            }
        }
        #expect(Self.openingPassword(vault) == 1)
    }

    /// `vault-stress passwd` changes the password in a loop; killed at a
    /// random moment, the vault opens with one of the two passwords (the open
    /// finishing or undoing the interrupted change), items intact.
    @Test func killingAPasswdAtRandomMomentsLeavesAVaultThatOpensWithOnePassword() throws {
        let (vault, _) = try Self.filledVault()
        defer { vault.cleanUp() }
        var generator = SystemRandomNumberGenerator()
        for round in 0..<60 {
            let (output, _) = try ProcessTests.killAtARandomMoment(["passwd", vault.path], round: round, using: &generator)
            try? output.close()
            #expect(Self.openingPassword(vault) != nil, "round \(round): opens with neither password")
            #expect(!FileManager.default.fileExists(atPath: vault.path + "/" + JointReplace.journalName), "round \(round)")
        }
    }
}
