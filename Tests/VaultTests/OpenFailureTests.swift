import Foundation
import Testing
import KeyshelfCrypto
@testable import KeyshelfVault

/// Opening distinguishes the causes of failure (DESIGN §6) and never modifies a file.
@Suite struct OpenFailureTests {
    /// A small vault with two items per store; returns the directory.
    static func smallVault() throws -> TemporaryVault {
        let vault = TemporaryVault()
        let session = try vault.directory.create(password: testPassword, limits: .minimum)
        try session.modify { contents in
            contents.local = [sampleItem(1, accessible: .afterFirstUnlockThisDeviceOnly), sampleItem(2)]
            contents.shared = [sampleItem(3), sampleItem(4)]
        }
        return vault
    }

    static let decodeCodes: Set<String> = ["notAVault", "unsupportedVersion", "damaged", "truncated", "kdfLimitsTooHigh"]

    /// Opens the vault expecting a failure; returns its error.
    static func failedOpen(_ vault: TemporaryVault, password: Secret = testPassword) -> VaultError? {
        do {
            _ = try vault.directory.unlock(password: password)
            return nil
        } catch let error as VaultError {
            return error
        } catch {
            return nil
        }
    }

    @Test(arguments: Store.allCases)
    func everySingleBitFlipIsDetectedAndLeavesTheFileAlone(store: Store) throws {
        let vault = try Self.smallVault()
        defer { vault.cleanUp() }
        let path = vault.file(store)
        let original = try readBytes(path)
        var undetected = [String]()
        // One flip per offset; the flipped bit cycles through all eight positions.
        for offset in original.indices {
            let bit = offset % 8
            var flipped = original
            flipped[offset] ^= UInt8(1 << bit)
            try writeBytes(flipped, to: path)
            let error = Self.failedOpen(vault)
            if error == nil || !Self.decodeCodes.contains("\(error!.code)") || error!.file != path {
                undetected.append("offset \(offset) bit \(bit): \(error.map { "\($0.code)" } ?? "opened")")
            }
            if try readBytes(path) != flipped { undetected.append("offset \(offset) bit \(bit): file modified") }
        }
        #expect(undetected.isEmpty, "\(undetected.prefix(10))")
        try writeBytes(original, to: path)
        #expect(throws: Never.self) { try vault.directory.unlock(password: testPassword) }
    }

    @Test(arguments: Store.allCases)
    func everyTruncationIsReportedAsTruncated(store: Store) throws {
        let vault = try Self.smallVault()
        defer { vault.cleanUp() }
        let path = vault.file(store)
        let original = try readBytes(path)
        for length in 0..<original.count {
            try writeBytes(Array(original.prefix(length)), to: path)
            let error = Self.failedOpen(vault)
            #expect(error?.code == .truncated, "length \(length)")
            #expect(error?.file == path)
            #expect(error?.exitCode == 7)
        }
    }

    @Test func wrongPasswordIsExit5AndNamesTheFile() throws {
        let vault = try Self.smallVault()
        defer { vault.cleanUp() }
        let before = try readBytes(vault.file(.local))
        let error = Self.failedOpen(vault, password: Secret(utf8: "not the password"))
        #expect(error?.code == .wrongPassword)
        #expect(error?.exitCode == 5)
        #expect(error?.status.rawValue == -25293)
        #expect(error?.file == vault.file(.local))
        #expect(try readBytes(vault.file(.local)) == before)
    }

    @Test func otherFilesAreNotAVault() throws {
        let vault = try Self.smallVault()
        defer { vault.cleanUp() }
        try writeBytes(Array("url,username,password\nhttps://a.example,me,pw\n".utf8), to: vault.file(.local))
        let error = Self.failedOpen(vault)
        #expect(error?.code == .notAVault)
        #expect(error?.exitCode == 7)
        #expect(error?.status.rawValue == -26275)
    }

    @Test func anotherFormatVersionIsUnsupported() throws {
        let vault = try Self.smallVault()
        defer { vault.cleanUp() }
        var bytes = try readBytes(vault.file(.shared))
        bytes[8] = 4
        try writeBytes(bytes, to: vault.file(.shared))
        let error = Self.failedOpen(vault)
        #expect(error?.code == .unsupportedVersion)
        #expect(error?.file == vault.file(.shared))
        #expect(error?.reason.contains("version 4") == true)
    }

    /// Rewrites the limits of a header with a valid checksum, as a hostile or future file would.
    static func withLimits(_ bytes: [UInt8], opslimit: UInt64, memlimitBytes: UInt64) -> [UInt8] {
        var out = bytes
        withUnsafeBytes(of: opslimit.littleEndian) { out.replaceSubrange(16..<24, with: $0) }
        withUnsafeBytes(of: memlimitBytes.littleEndian) { out.replaceSubrange(24..<32, with: $0) }
        return withValidChecksum(out)
    }

    @Test(arguments: [(UInt64(3), UInt64(64) << 30), (UInt64(1) << 40, UInt64(8192))])
    func kdfLimitsAboveTheCeilingAreRefusedWithoutRunning(opslimit: UInt64, memlimitBytes: UInt64) throws {
        let vault = try Self.smallVault()
        defer { vault.cleanUp() }
        let hostile = Self.withLimits(try readBytes(vault.file(.local)), opslimit: opslimit, memlimitBytes: memlimitBytes)
        try writeBytes(hostile, to: vault.file(.local))
        // Argon2id with 64 GiB or 2^40 passes could not finish: this returns only if it was never started.
        let error = Self.failedOpen(vault)
        #expect(error?.code == .kdfLimitsTooHigh)
        #expect(error?.exitCode == 7)
        #expect(try readBytes(vault.file(.local)) == hostile)
    }

    @Test func createRefusesLimitsAboveTheCeiling() {
        let vault = TemporaryVault()
        defer { vault.cleanUp() }
        #expect(throws: VaultError(.kdfLimitsTooHigh, file: "", reason: "")) {
            try vault.directory.create(password: testPassword, limits: .init(opslimit: 3, memlimitBytes: 4 << 30))
        }
        #expect(!vault.directory.exists)
    }

    @Test func missingVaultIsNoVaultAndExistingOneIsNotRecreated() throws {
        let vault = TemporaryVault()
        defer { vault.cleanUp() }
        #expect(!vault.directory.exists)
        let missing = Self.failedOpen(vault)
        #expect(missing?.code == .noVault)
        #expect(missing?.exitCode == 3)
        #expect(missing?.status.rawValue == -25300)
        _ = try vault.directory.create(password: testPassword, limits: .minimum)
        #expect(vault.directory.exists)
        let before = try readBytes(vault.file(.local))
        do {
            _ = try vault.directory.create(password: Secret(utf8: "other"), limits: .minimum)
            Issue.record("second create succeeded")
        } catch let error as VaultError {
            #expect(error.code == .alreadyExists)
            #expect(error.exitCode == 6)
            #expect(error.status.rawValue == -25299)
        }
        #expect(try readBytes(vault.file(.local)) == before)
    }

    @Test func damagedPayloadWithIntactHeaderIsDamaged() throws {
        let vault = try Self.smallVault()
        defer { vault.cleanUp() }
        var bytes = try readBytes(vault.file(.local))
        bytes[bytes.count - 1] ^= 0x80
        try writeBytes(bytes, to: vault.file(.local))
        let error = Self.failedOpen(vault)
        #expect(error?.code == .damaged)
        #expect(error?.reason.contains("backups/") == true)
    }
}

extension OpenFailureTests {
    @Test func aHugeFileIsNotLoaded() throws {
        let vault = try Self.smallVault()
        defer { vault.cleanUp() }
        // A sparse 3 GiB file: reading it whole would take seconds and gigabytes.
        let fd = open(vault.file(.shared), O_WRONLY | O_TRUNC)
        #expect(fd >= 0)
        #expect(ftruncate(fd, 3 << 30) == 0)
        close(fd)
        let error = Self.failedOpen(vault)
        #expect(error?.code == .notAVault)
        #expect(error?.file == vault.file(.shared))
    }
}
