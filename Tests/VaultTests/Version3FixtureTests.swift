import Foundation
import Testing
import KeyshelfCrypto
@testable import KeyshelfVault

/// Vault files in format v3 committed under Fixtures/v3 (see
/// Fixtures/README.md): `local.vault` is one base segment and its manifest;
/// `shared.vault` is a base segment whose first record has another
/// comment, the manifest, then one appendix holding that record as
/// `KnownAnswerTests.shared` has it and nothing else, so the file opens to
/// `KnownAnswerTests.shared` only when the appendix replaces the record in
/// its place (docs/vault-format.md, "Segments (v3)", "Appendices"). Re-record on purpose with
/// `KEYSHELF_RECORD_FIXTURES=1 swift test --filter Version3FixtureTests`.
@Suite struct Version3FixtureTests {
    static let password = Secret(utf8: "keyshelf fixture v3")
    static let replacedComment = "before the appendix"

    static var sourceFixtures: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/v3")
    }

    /// Written with the format's own pieces rather than a session, so that
    /// the files hold exactly the segments described above.
    @Test func recordFixturesWhenAsked() throws {
        guard ProcessInfo.processInfo.environment["KEYSHELF_RECORD_FIXTURES"] == "1" else { return }
        try FileManager.default.createDirectory(at: Self.sourceFixtures, withIntermediateDirectories: true)
        let salt = Random.bytes(PasswordHash.saltByteCount)
        let passwordKey = try VaultFile.deriveKey(password: Self.password, salt: salt, limits: .minimum, path: "fixture")
        func file(_ store: Store, base: [Item], appended: [Item]) throws -> [UInt8] {
            let vaultKey = Random.secureBytes(VaultHeader.vaultKeyByteCount)
            var items = base
            let plaintext = RecordCodec.encode(&items)
            let template = try VaultFile.makeHeader(store: store, limits: .minimum, salt: salt, vaultKey: vaultKey, passwordKey: passwordKey)
            let layout = SegmentLayout(plaintext, chunkByteCount: Int(template.chunkByteCount))
            var header = try VaultFile.sealedHeader(for: layout, header: template, vaultKey: vaultKey, passwordKey: passwordKey)
            var payload: [UInt8] = []
            let tag = try layout.seal(plaintext, header: header, vaultKey: vaultKey) { payload.append(contentsOf: $0) }
            if !appended.isEmpty {
                var records = appended
                payload += try VaultFile.sealAppendix(RecordCodec.encode(&records), header: header, vaultKey: vaultKey, payloadTag: tag, index: 0)
                header.payloadByteCount = UInt64(payload.count)
            }
            return header.serialized() + payload
        }
        var base = KnownAnswerTests.shared
        base[0].comment = Self.replacedComment
        try writeBytes(file(.local, base: KnownAnswerTests.local, appended: []), to: Self.sourceFixtures.appendingPathComponent("local.vault").path)
        try writeBytes(file(.shared, base: base, appended: [KnownAnswerTests.shared[0]]),
                       to: Self.sourceFixtures.appendingPathComponent("shared.vault").path)
    }

    /// Fixtures/v2: format v2 as keyshelf wrote it before v3 (one first
    /// segment, then an appendix that adds the last shared item), password
    /// `keyshelf fixture v2`; written with the v2 rules by hand.
    static let version2Password = Secret(utf8: "keyshelf fixture v2")

    @Test func recordVersion2FixturesWhenAsked() throws {
        guard ProcessInfo.processInfo.environment["KEYSHELF_RECORD_FIXTURES"] == "1" else { return }
        let directory = Self.sourceFixtures.deletingLastPathComponent().appendingPathComponent("v2")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let salt = Random.bytes(PasswordHash.saltByteCount)
        let passwordKey = try VaultFile.deriveKey(password: Self.version2Password, salt: salt, limits: .minimum, path: "fixture")
        for store in Store.allCases {
            let vaultKey = Random.secureBytes(VaultHeader.vaultKeyByteCount)
            var header = try VaultFile.makeHeader(version: 2, store: store, limits: .minimum, salt: salt, vaultKey: vaultKey, passwordKey: passwordKey)
            let items = store == .local ? KnownAnswerTests.local : KnownAnswerTests.shared
            var first = store == .local ? items : Array(items.dropLast())
            let sealed = try SecretStream.seal(RecordCodec.encode(&first), key: vaultKey, chunkByteCount: Int(header.chunkByteCount),
                                               associatedData: header.payloadAssociatedData())
            var payload: [UInt8] = []
            payload.appendLittleEndian(UInt32(sealed.count))
            payload += sealed
            if store == .shared {
                var added = [items[items.count - 1]]
                payload += try VaultFile.sealAppendix(RecordCodec.encode(&added), header: header, vaultKey: vaultKey,
                                                      payloadTag: Array(sealed.suffix(16)), index: 0)
            }
            header.payloadByteCount = UInt64(payload.count)
            try writeBytes(header.serialized() + payload, to: directory.appendingPathComponent(store.fileName).path)
        }
    }

    @Test func version2FilesStillOpen() throws {
        let vault = try KnownAnswerTests.fixtureCopy("v2")
        defer { vault.cleanUp() }
        for store in Store.allCases {
            #expect(Array(try readBytes(vault.file(store))[8..<10]) == [2, 0])
        }
        let session = try vault.directory.unlock(password: Self.version2Password)
        #expect(try session.contents().local == KnownAnswerTests.local)
        #expect(try session.contents().shared == KnownAnswerTests.shared)
        // An addition stays a v2 appendix; an edit rewrites the file as v3.
        try session.modify { $0.shared.append(sampleItem(7)) }
        #expect(Array(try readBytes(vault.file(.shared))[8..<10]) == [2, 0])
        try session.modify { $0.shared[0].label = "edited" }
        #expect(Array(try readBytes(vault.file(.shared))[8..<10]) == [3, 0])
        let reopened = try vault.directory.unlock(password: Self.version2Password).contents().shared
        #expect(reopened.map(\.id) == KnownAnswerTests.shared.map(\.id) + [sampleItem(7).id])
        #expect(reopened[0].label == "edited")
    }

    @Test func version3FilesOpenWithTheAppendixReplacingItsRecordInPlace() throws {
        let vault = try KnownAnswerTests.fixtureCopy("v3")
        defer { vault.cleanUp() }
        let contents = try vault.directory.unlock(password: Self.password).contents()
        #expect(contents.local == KnownAnswerTests.local)
        #expect(contents.shared == KnownAnswerTests.shared)
        for store in Store.allCases {
            let bytes = try readBytes(vault.file(store))
            #expect(Array(bytes[8..<10]) == [3, 0])                       // version 3
            let payload = bytes[120..<128].reversed().reduce(0) { $0 << 8 | Int($1) }
            #expect(payload == bytes.count - 144)
            func length(at offset: Int) -> Int { bytes[offset..<(offset + 4)].reversed().reduce(0) { $0 << 8 | Int($1) } }
            // One base segment, then the manifest (its length's high bit set): one tag.
            let base = length(at: 144)
            let manifest = length(at: 148 + base)
            #expect(manifest & 0x8000_0000 != 0)
            #expect(manifest & 0x7FFF_FFFF == 24 + 17 + 4 + 16)
            // local: nothing more; shared: one appendix.
            #expect((8 + base + manifest & 0x7FFF_FFFF == payload) == (store == .local))
        }
    }

    /// The session's plaintext is the folded items' encoding, so the next
    /// edit appends one record instead of replacing the file.
    @Test func anEditOfTheFixtureAppendsAgain() throws {
        let vault = try KnownAnswerTests.fixtureCopy("v3")
        defer { vault.cleanUp() }
        let session = try vault.directory.unlock(password: Self.password)
        let before = try readBytes(vault.file(.shared))
        try session.modify { $0.shared[1].label = "edited" }
        let after = try readBytes(vault.file(.shared))
        #expect(Array(after[144..<before.count]) == Array(before[144...]))
        var expected = KnownAnswerTests.shared
        let edited = try vault.directory.unlock(password: Self.password).contents().shared
        expected[1].label = "edited"
        #expect(edited.map(\.label) == expected.map(\.label))
        #expect(edited.map(\.id) == expected.map(\.id))
    }
}
