import Foundation
import Testing
import KeyshelfCrypto
@testable import KeyshelfVault

/// Headers and payloads made to hurt the reader (issue 11 items 1–2, issue 20
/// item 8): every one is refused with a clear error, in bounded time and
/// memory, before anything runs on a field that was not checked.
@Suite struct HostileHeaderTests {
    /// `bytes` with `value` written little-endian at `offset`, checksum not touched.
    static func setting<T: FixedWidthInteger>(_ value: T, at offset: Int, in bytes: [UInt8]) -> [UInt8] {
        var out = bytes
        withUnsafeBytes(of: value.littleEndian) { out.replaceSubrange(offset..<(offset + MemoryLayout<T>.size), with: $0) }
        return out
    }

    @Test(arguments: Store.allCases)
    func aChunkSizeOfZeroIsDamageNotADivisionByZero(store: Store) throws {
        let vault = try OpenFailureTests.smallVault()
        defer { vault.cleanUp() }
        let hostile = withValidChecksum(Self.setting(UInt32(0), at: 11, in: try readBytes(vault.file(store))))
        try writeBytes(hostile, to: vault.file(store))
        let error = OpenFailureTests.failedOpen(vault)
        #expect(error?.code == .damaged)
        #expect(error?.reason.contains("chunk size (0 bytes)") == true, "\(String(describing: error))")
        #expect(try readBytes(vault.file(store)) == hostile)
    }

    @Test func aChunkSizeOfZeroWithABadChecksumIsReportedAsTheChecksum() throws {
        let vault = try OpenFailureTests.smallVault()
        defer { vault.cleanUp() }
        try writeBytes(Self.setting(UInt32(0), at: 11, in: try readBytes(vault.file(.local))), to: vault.file(.local))
        let error = OpenFailureTests.failedOpen(vault)
        #expect(error?.code == .damaged)
        #expect(error?.reason.contains("checksum") == true, "\(String(describing: error))")
    }

    /// A GIF in the vault's place: its bytes 8–14 read as version ≥ 2 and chunk size 0.
    @Test func anImageInPlaceOfTheVaultIsNotAVault() throws {
        let vault = try OpenFailureTests.smallVault()
        defer { vault.cleanUp() }
        var gif = Array("GIF89a".utf8) + [0x10, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00]
        gif += (0..<400).map { UInt8(truncatingIfNeeded: $0 &* 37) }
        try writeBytes(gif, to: vault.file(.shared))
        let error = OpenFailureTests.failedOpen(vault)
        #expect(error?.code == .notAVault)
        #expect(error?.file == vault.file(.shared))
        #expect(try readBytes(vault.file(.shared)) == gif)
    }

    /// issue 11 item 2: 4 zero bytes read as an empty segment; each is damage at once.
    @Test func aPayloadOfZeroBytesIsDamageFoundWhileParsing() throws {
        let vault = try OpenFailureTests.smallVault()
        defer { vault.cleanUp() }
        let header = Array(try readBytes(vault.file(.shared)).prefix(VaultHeader.byteCount))
        let zeros = [UInt8](repeating: 0, count: 1 << 20)
        let hostile = withValidChecksum(Self.setting(UInt64(zeros.count), at: VaultHeader.payloadByteCountOffset, in: header)) + zeros
        try writeBytes(hostile, to: vault.file(.shared))
        let error = OpenFailureTests.failedOpen(vault)
        #expect(error?.code == .damaged)
        #expect(error?.reason.contains("segment 1 of its payload is 0 bytes") == true, "\(String(describing: error))")
        #expect(try readBytes(vault.file(.shared)) == hostile)
    }

    /// Segments long enough to be streams, but more of them than any writer makes.
    @Test func morePiecesThanAnyWriterMakesAreDamageFoundWhileParsing() throws {
        let vault = try OpenFailureTests.smallVault()
        defer { vault.cleanUp() }
        let original = try readBytes(vault.file(.shared))
        var payload = Array(original[VaultHeader.byteCount...])
        let piece = Self.setting(UInt32(VaultFile.smallestSegmentByteCount), at: 0, in: [UInt8](repeating: 0xA5, count: 4 + VaultFile.smallestSegmentByteCount))
        for _ in 0..<(VaultSession.maximumAppendixCount + 1) { payload += piece }
        let hostile = withValidChecksum(Self.setting(UInt64(payload.count), at: VaultHeader.payloadByteCountOffset, in: Array(original.prefix(VaultHeader.byteCount)))) + payload
        try writeBytes(hostile, to: vault.file(.shared))
        let error = OpenFailureTests.failedOpen(vault)
        #expect(error?.code == .damaged)
        #expect(error?.reason.contains("more than \(VaultSession.maximumAppendixCount) appendices") == true, "\(String(describing: error))")
    }

    /// issue 20 item 8: limits libsodium would accept, one pass over the ceiling.
    /// Had Argon2id run, the changed limits would derive another key: "wrong password".
    @Test func anOpslimitJustOverTheCeilingIsRefusedWithoutRunning() throws {
        let vault = try OpenFailureTests.smallVault()
        defer { vault.cleanUp() }
        let over = VaultDirectory.maximumLimits.opslimit + 1
        let hostile = OpenFailureTests.withLimits(try readBytes(vault.file(.local)), opslimit: over, memlimitBytes: PasswordHashLimits.minimum.memlimitBytes)
        try writeBytes(hostile, to: vault.file(.local))
        let error = OpenFailureTests.failedOpen(vault)
        #expect(error?.code == .kdfLimitsTooHigh, "\(String(describing: error))")
        #expect(error?.exitCode == 7)
        #expect(try readBytes(vault.file(.local)) == hostile)
    }

    /// issue 20 item 8: a first segment cut after a whole MESSAGE chunk, with
    /// its length prefix and the header's length made to agree: only the
    /// missing FINAL tag tells.
    @Test func aLastChunkWithoutFinalIsTruncationEvenWhenTheLengthsAgree() throws {
        let vault = TemporaryVault()
        defer { vault.cleanUp() }
        try FileSystem.makeDirectory(vault.path)
        let chunk = 64
        let salt = Random.bytes(PasswordHash.saltByteCount)
        let passwordKey = try VaultFile.deriveKey(password: testPassword, salt: salt, limits: .minimum, path: vault.path)
        let vaultKey = Random.secureBytes(VaultHeader.vaultKeyByteCount)
        let header = try VaultFile.makeHeader(store: .local, limits: .minimum, salt: salt, vaultKey: vaultKey,
                                              passwordKey: passwordKey, chunkByteCount: UInt32(chunk))
        var file = VaultSession.FileState(header: header, passwordKey: passwordKey, vaultKey: vaultKey)
        var items = [sampleItem(1), sampleItem(2)]
        let plaintext = RecordCodec.encode(&items)
        try VaultSession.save(items, plaintext: plaintext, store: .local, file: &file, directory: vault.path)
        #expect(try vault.directory.unlock(password: testPassword).contents().local == items)

        // v3: one base segment (its records), then the manifest; the base segment loses its last chunk.
        let whole = try readBytes(vault.file(.local))
        let lastPlaintext = plaintext.byteCount % chunk == 0 ? chunk : plaintext.byteCount % chunk
        let cut = SecretStream.chunkOverheadByteCount + lastPlaintext
        let base = whole.withUnsafeBytes { Int($0.loadLittleEndian(UInt32.self, at: VaultHeader.byteCount)) }
        let baseEnd = VaultHeader.byteCount + VaultFile.segmentPrefixByteCount + base
        let payload = Int(file.header.payloadByteCount) - cut
        var hostile = Self.setting(UInt64(payload), at: VaultHeader.payloadByteCountOffset,
                                   in: Array(whole[..<(baseEnd - cut)]) + whole[baseEnd...])
        hostile = withValidChecksum(Self.setting(UInt32(base - cut), at: VaultHeader.byteCount, in: hostile))
        try writeBytes(hostile, to: vault.file(.local))
        let error = OpenFailureTests.failedOpen(vault)
        #expect(error?.code == .truncated, "\(String(describing: error))")
        #expect(error?.reason.contains("final chunk") == true)
        #expect(try readBytes(vault.file(.local)) == hostile)
    }
}
