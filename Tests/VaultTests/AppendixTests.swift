import Foundation
import Testing
import KeyshelfCrypto
@testable import KeyshelfVault

/// Items changed in place or added at the end go into an appendix that
/// grows the file in place (docs/vault-format.md, "Appendices"); every other
/// change, and the appendix after `maximumAppendixCount`, replaces the whole file.
@Suite struct AppendixTests {
    private static func inode(_ path: String) throws -> UInt64 {
        try #require(try FileSystem.identity(of: path)).inode
    }

    private static func announcedByteCount(_ bytes: [UInt8]) -> Int {
        bytes.withUnsafeBytes { Int($0.loadLittleEndian(UInt64.self, at: VaultHeader.payloadByteCountOffset)) }
    }

    private static func opened(_ vault: TemporaryVault, _ store: Store) throws -> VaultSession.FileState {
        let path = vault.file(store)
        let file = try #require(try FileSystem.read(path))
        return try VaultSession.openFile(file, store: store, password: testPassword, reusing: nil, path: path)
    }

    /// Rewrites `store`'s file as format v2 (its own version in the key
    /// wrap's and the payload's associated data), as an older keyshelf saved it.
    private static func downgradeToVersion2(_ vault: TemporaryVault, _ store: Store) throws {
        var state = try opened(vault, store)
        let plaintext = state.wholePlaintext()
        var header = try VaultFile.makeHeader(version: 2, store: store, limits: state.header.limits, salt: state.header.salt,
                                              vaultKey: state.vaultKey, passwordKey: state.passwordKey)
        // v2: one segment, its associated data the header's first 15 bytes.
        let sealed = try SecretStream.seal(plaintext, key: state.vaultKey, chunkByteCount: Int(header.chunkByteCount),
                                           associatedData: header.payloadAssociatedData())
        header.payloadByteCount = UInt64(VaultFile.segmentPrefixByteCount + sealed.count)
        var out = header.serialized()
        out.appendLittleEndian(UInt32(sealed.count))
        try writeBytes(out + sealed, to: vault.file(store))
    }

    @Test func addingItemsGrowsTheFileInPlaceWithoutABackup() throws {
        let vault = TemporaryVault()
        defer { vault.cleanUp() }
        let session = try vault.directory.create(password: testPassword, limits: .minimum)
        let inode = try Self.inode(vault.file(.shared))
        try session.modify { $0.shared.append(sampleItem(1)) }
        let one = try readBytes(vault.file(.shared))
        try session.modify { $0.shared.append(contentsOf: [sampleItem(2), sampleItem(3)]) }
        let two = try readBytes(vault.file(.shared))

        #expect(try Self.inode(vault.file(.shared)) == inode)
        #expect(two.prefix(VaultHeader.payloadByteCountOffset) == one.prefix(VaultHeader.payloadByteCountOffset), "only the length and checksum change in the header")
        #expect(Array(two.prefix(one.count))[VaultHeader.byteCount...] == one[VaultHeader.byteCount...], "the bytes already there stay")
        #expect(Self.announcedByteCount(two) == two.count - VaultHeader.byteCount)
        #expect(!FileManager.default.fileExists(atPath: vault.path + "/backups/shared.1.bak"))
        #expect(try Self.opened(vault, .shared).appendixCount == 2)
        let reopened = try vault.directory.unlock(password: testPassword)
        #expect(try reopened.contents().shared == [sampleItem(1), sampleItem(2), sampleItem(3)])
    }

    @Test func aRemovalReplacesTheFileWithTheAppendicesFoldedIn() throws {
        let vault = TemporaryVault()
        defer { vault.cleanUp() }
        let session = try vault.directory.create(password: testPassword, limits: .minimum)
        try session.modify { $0.local = [sampleItem(1), sampleItem(3)] }
        try session.modify { $0.local.append(sampleItem(2)) }
        try session.modify { $0.local[0].comment = "edited" }
        let appended = try readBytes(vault.file(.local))
        let inode = try Self.inode(vault.file(.local))
        try session.modify { $0.local.remove(at: 1) }

        #expect(try Self.inode(vault.file(.local)) != inode)
        #expect(try Self.opened(vault, .local).appendixCount == 0)
        #expect(try readBytes(vault.path + "/backups/local.1.bak") == appended)
        var expected = [sampleItem(1), sampleItem(2)]
        expected[0].comment = "edited"
        #expect(try vault.directory.unlock(password: testPassword).contents().local == expected)
    }

    /// Format v3: an edit changes only the edited records, as an appendix
    /// whose records replace the earlier ones by id, in their place.
    @Test func anEditInPlaceIsAnAppendixThatReplacesTheRecord() throws {
        let vault = TemporaryVault()
        defer { vault.cleanUp() }
        let session = try vault.directory.create(password: testPassword, limits: .minimum)
        try session.modify { $0.shared = [sampleItem(1), sampleItem(2), sampleItem(3)] }
        let saved = try readBytes(vault.file(.shared))
        let inode = try Self.inode(vault.file(.shared))
        let appendices = try Self.opened(vault, .shared).appendixCount
        try session.modify { $0.shared[1].comment = "edited" }
        try session.modify { $0.shared[1].comment = "edited again"; $0.shared[0].label = "first"; $0.shared.append(sampleItem(4)) }

        let file = try readBytes(vault.file(.shared))
        #expect(try Self.inode(vault.file(.shared)) == inode)
        #expect(file[8] == 3 && file[9] == 0)
        #expect(Array(file[VaultHeader.byteCount..<saved.count]) == Array(saved[VaultHeader.byteCount...]), "the bytes already there stay")
        #expect(file.count - saved.count < 1024, "two small appendices, not another copy of the store")
        #expect(try Self.opened(vault, .shared).appendixCount == appendices + 2)
        var expected = [sampleItem(1), sampleItem(2), sampleItem(3), sampleItem(4)]
        expected[0].label = "first"
        expected[1].comment = "edited again"
        let reopened = try vault.directory.unlock(password: testPassword)
        #expect(try reopened.contents().shared == expected)
        // The session that read the folded file appends again instead of replacing it.
        try reopened.modify { $0.shared[2].comment = "third" }
        #expect(try Self.inode(vault.file(.shared)) == inode)
        expected[2].comment = "third"
        #expect(try vault.directory.unlock(password: testPassword).contents().shared == expected)
    }

    /// The merge driver's result over OURS keeps OURS's bytes and appends
    /// the merged records, so git stores a small delta (docs/sync.md).
    @Test func aMergedCopyOverOursIsOursWithAnAppendix() throws {
        let vault = TemporaryVault()
        defer { vault.cleanUp() }
        let session = try vault.directory.create(password: testPassword, limits: .minimum)
        try session.modify { $0.shared = [sampleItem(1), sampleItem(2), sampleItem(3)] }
        let ours = try readBytes(vault.file(.shared))
        var merged = try session.contents().shared
        merged[1].comment = "merged"
        merged.append(sampleItem(4))

        let copy = try session.sealSharedCopy(merged, over: ours)
        #expect(Array(copy[VaultHeader.byteCount..<ours.count]) == Array(ours[VaultHeader.byteCount...]))
        #expect(copy.count - ours.count < 1024)
        #expect(try session.openSharedCopy(copy, name: "copy") == merged)
        let reordered = Array(merged.reversed())
        let whole = try session.sealSharedCopy(reordered, over: ours)
        #expect(!whole[VaultHeader.byteCount...].starts(with: ours[VaultHeader.byteCount...]), "not a change in place: sealed whole")
        #expect(try session.openSharedCopy(whole, name: "whole") == reordered)
    }

    /// A v2 reader would take a replacing record for a new one: a v2 file is rewritten as v3 by the first edit.
    @Test func anEditOfAVersion2FileRewritesItAsVersion3() throws {
        let vault = TemporaryVault()
        defer { vault.cleanUp() }
        let session = try vault.directory.create(password: testPassword, limits: .minimum)
        try session.modify { $0.local = [sampleItem(1)] }
        try Self.downgradeToVersion2(vault, .local)
        let reopened = try vault.directory.unlock(password: testPassword)
        try reopened.modify { $0.local.append(sampleItem(2)) }
        let inode = try Self.inode(vault.file(.local))
        #expect(try readBytes(vault.file(.local))[8] == 2, "an addition is an appendix a v2 reader understands")
        try reopened.modify { $0.local[0].comment = "edited" }
        #expect(try Self.inode(vault.file(.local)) != inode)
        #expect(try readBytes(vault.file(.local))[8] == 3)
        var expected = [sampleItem(1), sampleItem(2)]
        expected[0].comment = "edited"
        #expect(try vault.directory.unlock(password: testPassword).contents().local == expected)
    }

    @Test func theAddAfterTheLastAllowedAppendixReplacesTheFile() throws {
        let vault = TemporaryVault()
        defer { vault.cleanUp() }
        let session = try vault.directory.create(password: testPassword, limits: .minimum)
        let inode = try Self.inode(vault.file(.local))
        for n in 1...VaultSession.maximumAppendixCount {
            try session.modify { $0.local.append(sampleItem(n)) }
        }
        #expect(try Self.inode(vault.file(.local)) == inode)
        #expect(try Self.opened(vault, .local).appendixCount == VaultSession.maximumAppendixCount)
        try session.modify { $0.local.append(sampleItem(0)) }
        #expect(try Self.inode(vault.file(.local)) != inode)
        #expect(try Self.opened(vault, .local).appendixCount == 0)
        #expect(try vault.directory.unlock(password: testPassword).contents().local.count == VaultSession.maximumAppendixCount + 1)
    }

    /// Killed after writing the appendix, before the header announcing it:
    /// the file opens as it was, and the next append cuts the leftover off.
    @Test func anAppendInterruptedBeforeItsHeaderUpdateIsLeftOut() throws {
        let vault = TemporaryVault()
        defer { vault.cleanUp() }
        let session = try vault.directory.create(password: testPassword, limits: .minimum)
        try session.modify { $0.local = [sampleItem(1)] }
        let before = try readBytes(vault.file(.local))
        try session.modify { $0.local.append(sampleItem(2)) }
        let after = try readBytes(vault.file(.local))
        let interrupted = Array(before.prefix(VaultHeader.byteCount)) + after[VaultHeader.byteCount...]
        try writeBytes(interrupted, to: vault.file(.local))

        let reader = try vault.directory.unlock(password: testPassword)
        #expect(try reader.contents().local == [sampleItem(1)])
        try reader.modify { $0.local.append(sampleItem(3)) }
        #expect(try vault.directory.unlock(password: testPassword).contents().local == [sampleItem(1), sampleItem(3)])
        let grown = try readBytes(vault.file(.local))
        #expect(Self.announcedByteCount(grown) == grown.count - VaultHeader.byteCount, "the leftover was cut off")
    }

    /// A reader that caught an append between its two writes may get the
    /// same identity (size, coarse timestamps) once the header is written:
    /// it checks the header of such a file again instead of trusting the
    /// identity, and reads it again once the header changed.
    @Test func aFileReadWithAnAppendUnderWayIsReadAgain() throws {
        let vault = TemporaryVault()
        defer { vault.cleanUp() }
        let session = try vault.directory.create(password: testPassword, limits: .minimum)
        try session.modify { $0.local = [sampleItem(1)] }
        let before = try readBytes(vault.file(.local))
        try session.modify { $0.local.append(sampleItem(2)) }
        let after = try readBytes(vault.file(.local))
        try writeBytes(Array(before.prefix(VaultHeader.byteCount)) + after[VaultHeader.byteCount...], to: vault.file(.local))

        let reader = try vault.directory.unlock(password: testPassword)
        _ = try reader.contents()
        let revision = reader.revision
        _ = try reader.contents()
        #expect(reader.revision == revision, "the header is still the one read: nothing to read again")
        let fd = open(vault.file(.local), O_WRONLY)
        #expect(fd >= 0)
        #expect(pwrite(fd, after, VaultHeader.byteCount, 0) == VaultHeader.byteCount)
        close(fd)
        #expect(try reader.contents().local == [sampleItem(1), sampleItem(2)])
        #expect(reader.revision != revision)
    }

    @Test func moreLeftoverThanOneAppendixIsDamage() throws {
        let vault = TemporaryVault()
        defer { vault.cleanUp() }
        let session = try vault.directory.create(password: testPassword, limits: .minimum)
        try session.modify { $0.local = [sampleItem(1)] }
        let bytes = try readBytes(vault.file(.local))
        let limit = VaultHeader.trailingByteLimit(version: 2, chunkByteCount: VaultHeader.defaultChunkByteCount)
        try writeBytes(bytes + [UInt8](repeating: 0, count: limit), to: vault.file(.local))
        #expect(try vault.directory.unlock(password: testPassword).contents().local == [sampleItem(1)])
        try writeBytes(bytes + [UInt8](repeating: 0, count: limit + 1), to: vault.file(.local))
        let error = OpenFailureTests.failedOpen(vault)
        #expect(error?.code == .damaged)
        #expect(error?.reason.contains("\(limit + 1) unexpected bytes") == true)
    }

    @Test func appendicesCannotBeReorderedOrCarriedToAnotherPayload() throws {
        let vault = TemporaryVault()
        defer { vault.cleanUp() }
        let session = try vault.directory.create(password: testPassword, limits: .minimum)
        try session.modify { $0.shared = [sampleItem(1)] }  // appendix 1 (the new file's payload is empty)
        let base = try readBytes(vault.file(.shared)).count
        try session.modify { $0.shared.append(sampleItem(2)) }
        let first = try readBytes(vault.file(.shared)).count
        try session.modify { $0.shared.append(sampleItem(4)) }
        let file = try readBytes(vault.file(.shared))
        // Same size (items 2 and 4 differ in one digit): swapped, both are in place but out of order.
        #expect(first - base == file.count - first)
        let swapped = Array(file[..<base]) + file[first...] + file[base..<first]
        try writeBytes(swapped, to: vault.file(.shared))
        let error = OpenFailureTests.failedOpen(vault)
        #expect(error?.reason.contains("appendix 2 does not authenticate") == true, "\(String(describing: error))")
        #expect(error?.reason.contains("keep a copy of it (credentials added since it was last rewritten are in no backup)") == true)

        // An appendix sealed after an earlier payload does not open after a new one.
        try writeBytes(file, to: vault.file(.shared))
        let other = try vault.directory.unlock(password: testPassword)
        try other.modify { $0.shared.removeLast() }
        try other.modify { $0.shared.append(sampleItem(5)) }
        let renewed = try readBytes(vault.file(.shared))
        let appendix = Array(file[base..<first])
        #expect(renewed.count >= appendix.count)
        let spliced = Array(renewed[..<(renewed.count - appendix.count)]) + appendix
        try writeBytes(spliced, to: vault.file(.shared))
        #expect(OpenFailureTests.failedOpen(vault)?.code == .damaged)
    }

    @Test func appendicesSurviveAPasswordChange() throws {
        let vault = TemporaryVault()
        defer { vault.cleanUp() }
        let session = try vault.directory.create(password: testPassword, limits: .minimum)
        try session.modify { $0.shared = [sampleItem(1)] }
        try session.modify { $0.shared.append(sampleItem(2)) }
        let newPassword = Secret(utf8: "another horse")
        try session.changePassword(to: newPassword, limits: nil)
        let reopened = try vault.directory.unlock(password: newPassword)
        #expect(try reopened.contents().shared == [sampleItem(1), sampleItem(2)])
        try reopened.modify { $0.shared.append(sampleItem(3)) }
        #expect(try vault.directory.unlock(password: newPassword).contents().shared == [sampleItem(1), sampleItem(2), sampleItem(3)])
    }

    @Test func anAddToAFileWithAnotherHardLinkReplacesTheFile() throws {
        let vault = TemporaryVault()
        defer { vault.cleanUp() }
        let session = try vault.directory.create(password: testPassword, limits: .minimum)
        let copy = vault.path + "/hand-made-copy"
        #expect(link(vault.file(.local), copy) == 0)
        let kept = try readBytes(copy)
        try session.modify { $0.local.append(sampleItem(1)) }
        #expect(try readBytes(copy) == kept, "the other name still holds the old version")
        #expect(try vault.directory.unlock(password: testPassword).contents().local == [sampleItem(1)])
    }

    @Test func theFirstAddToAVersion1FileRewritesItAsVersion3() throws {
        let vault = try KnownAnswerTests.fixtureCopy()
        defer { vault.cleanUp() }
        let session = try vault.directory.unlock(password: KnownAnswerTests.password)
        let inode = try Self.inode(vault.file(.local))
        try session.modify { $0.local.append(sampleItem(9)) }
        let bytes = try readBytes(vault.file(.local))
        #expect(bytes[8] == 3 && bytes[9] == 0)
        let rewritten = try Self.inode(vault.file(.local))
        #expect(rewritten != inode)
        #expect(try vault.directory.unlock(password: KnownAnswerTests.password).contents().local == KnownAnswerTests.local + [sampleItem(9)])
        try session.modify { $0.local.append(sampleItem(10)) }
        #expect(try Self.inode(vault.file(.local)) == rewritten, "now in v3, the next add is an appendix")
        #expect(try vault.directory.unlock(password: KnownAnswerTests.password).contents().local.suffix(2) == [sampleItem(9), sampleItem(10)])
    }

    @Test func addWritesOnlyTheNewItemAndLaterChangesSeeIt() throws {
        let vault = TemporaryVault()
        defer { vault.cleanUp() }
        let session = try vault.directory.create(password: testPassword, limits: .minimum)
        try session.modify { $0.shared = [sampleItem(1)] }
        let inode = try Self.inode(vault.file(.shared))
        var seen: [Item] = []
        #expect(try session.add(to: .shared) { contents in seen = contents.shared; return sampleItem(2) })
        #expect(seen == [sampleItem(1)])
        #expect(try session.add(to: .shared) { _ in sampleItem(3) })
        #expect(try Self.inode(vault.file(.shared)) == inode)
        #expect(try session.contents().shared == [sampleItem(1), sampleItem(2), sampleItem(3)])
        #expect(try vault.directory.unlock(password: testPassword).contents().shared == [sampleItem(1), sampleItem(2), sampleItem(3)])

        // A change that changes nothing still writes nothing; an edit sees the added items.
        try session.modify { _ in }
        #expect(try Self.inode(vault.file(.shared)) == inode)
        try session.modify { $0.shared[2].comment = "edited" }
        var expected = [sampleItem(1), sampleItem(2), sampleItem(3)]
        expected[2].comment = "edited"
        #expect(try vault.directory.unlock(password: testPassword).contents().shared == expected)
        // A body that fails after `add` put items in an appendix gets them back.
        #expect(try session.add(to: .shared) { _ in sampleItem(4) })
        struct Refused: Error {}
        #expect(throws: Refused.self) { try session.modify { $0.shared.removeAll(); throw Refused() } }
        #expect(try session.contents().shared == expected + [sampleItem(4)])
    }

    @Test func addWritesNothingWhenTheBodyReturnsNilOrTheItemMayNotBeShared() throws {
        let vault = TemporaryVault()
        defer { vault.cleanUp() }
        let session = try vault.directory.create(password: testPassword, limits: .minimum)
        let before = try readBytes(vault.file(.shared))
        #expect(try !session.add(to: .shared) { _ in nil })
        #expect(throws: VaultError.self) { try session.add(to: .shared) { _ in sampleItem(1, accessible: .whenUnlockedThisDeviceOnly) } }
        #expect(try readBytes(vault.file(.shared)) == before)
        #expect(try session.contents().shared.isEmpty)
    }

    @Test func addReplacesTheFileWhenItCannotTakeAnAppendix() throws {
        let vault = TemporaryVault()
        defer { vault.cleanUp() }
        let session = try vault.directory.create(password: testPassword, limits: .minimum)
        #expect(link(vault.file(.local), vault.path + "/hand-made-copy") == 0)
        let inode = try Self.inode(vault.file(.local))
        #expect(try session.add(to: .local) { _ in sampleItem(1) })
        #expect(try Self.inode(vault.file(.local)) != inode)
        #expect(try session.contents().local == [sampleItem(1)])
        #expect(try vault.directory.unlock(password: testPassword).contents().local == [sampleItem(1)])
    }

    @Test func addRefusesAFileReplacedOutsideTheLockAndReadsItAgain() throws {
        let vault = TemporaryVault()
        defer { vault.cleanUp() }
        let session = try vault.directory.create(password: testPassword, limits: .minimum)
        let other = try vault.directory.unlock(password: testPassword)
        try other.modify { $0.local = [sampleItem(1)] }
        let file = try readBytes(vault.file(.local))
        // Changed between `refresh` and the append, as by a sync tool that ignores the lock.
        #expect(throws: VaultError.self) {
            try session.add(to: .local) { _ in
                try? FileManager.default.removeItem(atPath: vault.file(.local))
                try? writeBytes(file, to: vault.file(.local))
                return sampleItem(2)
            }
        }
        #expect(try session.contents().local == [sampleItem(1)])
        #expect(try session.add(to: .local) { _ in sampleItem(2) })
        #expect(try vault.directory.unlock(password: testPassword).contents().local == [sampleItem(1), sampleItem(2)])
    }

    /// A first segment of any length that fills the announced payload: every
    /// one too short for a secretstream is refused as damage, none crashes the reader.
    @Test(arguments: [0, 1, 15, 16, 40, 41])
    func aShortFirstSegmentIsRefused(length: Int) throws {
        let vault = TemporaryVault()
        defer { vault.cleanUp() }
        _ = try vault.directory.create(password: testPassword, limits: .minimum)
        var bytes = Array(try readBytes(vault.file(.local)).prefix(VaultHeader.byteCount))
        withUnsafeBytes(of: UInt64(4 + length).littleEndian) { bytes.replaceSubrange(120..<128, with: $0) }
        bytes = withValidChecksum(bytes)
        withUnsafeBytes(of: UInt32(length).littleEndian) { bytes.append(contentsOf: $0) }
        bytes += [UInt8](repeating: 0, count: length)
        try writeBytes(bytes, to: vault.file(.local))
        let error = OpenFailureTests.failedOpen(vault)
        #expect(error?.code == .damaged || error?.code == .truncated)
    }

    /// Readers take no lock: one that examined the file just before an
    /// append grew it and rewrote its header reads it again, instead of
    /// finding a header that announces more than the size it saw.
    @Test func aReadOverlappingAnAppendIsDoneAgain() throws {
        let vault = TemporaryVault()
        defer { vault.cleanUp() }
        let session = try vault.directory.create(password: testPassword, limits: .minimum)
        try session.modify { $0.local = [sampleItem(1)] }
        var appended = false
        let file = try #require(try FileSystem.read(vault.file(.local)) {
            guard !appended else { return }
            appended = true
            _ = try? session.add(to: .local) { _ in sampleItem(2) }
        })
        #expect(appended)
        let opened = try VaultSession.openFile(file, store: .local, password: testPassword, reusing: nil, path: vault.file(.local))
        #expect(opened.items == [sampleItem(1), sampleItem(2)])
    }

    @Test func aHugeAnnouncedPayloadIsTruncationNotACrash() throws {
        let vault = TemporaryVault()
        defer { vault.cleanUp() }
        _ = try vault.directory.create(password: testPassword, limits: .minimum)
        var bytes = try readBytes(vault.file(.local))
        withUnsafeBytes(of: UInt64.max.littleEndian) { bytes.replaceSubrange(120..<128, with: $0) }
        try writeBytes(withValidChecksum(bytes), to: vault.file(.local))
        #expect(OpenFailureTests.failedOpen(vault)?.code == .truncated)
    }

    /// A reader that keeps overlapping adds reads once more under the shared
    /// lock, which keeps keyshelf writers out; one that overlaps a program
    /// ignoring the lock gives up with "try again", not "damaged".
    @Test func aReadThatKeepsOverlappingWritesFallsBackToTheLock() throws {
        let vault = TemporaryVault()
        defer { vault.cleanUp() }
        let session = try vault.directory.create(password: testPassword, limits: .minimum)
        try session.modify { $0.local = [sampleItem(1)] }
        var adds = 0
        let file = try #require(try FileSystem.read(vault.file(.local)) {
            // Four adds in the four lock-free tries; the locked try would wait for the lock itself.
            guard adds < 4 else { return }
            adds += 1
            _ = try? session.add(to: .local) { _ in sampleItem(1 + adds) }
        })
        #expect(adds == 4)
        let opened = try VaultSession.openFile(file, store: .local, password: testPassword, reusing: nil, path: vault.file(.local))
        #expect(opened.items == (1...5).map { sampleItem($0) })

        let error = FileSafetyTests.vaultError {
            _ = try FileSystem.read(vault.file(.local)) {
                let fd = open(vault.file(.local), O_WRONLY | O_APPEND)
                _ = write(fd, "x", 1)
                close(fd)
            }
        }
        #expect(error?.code == .changedOnDisk)
        #expect(error?.reason.contains("kept changing while it was read") == true)
    }
}
