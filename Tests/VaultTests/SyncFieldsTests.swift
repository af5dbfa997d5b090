import Foundation
import Testing
import KeyshelfCrypto
@testable import KeyshelfVault

/// Wire tags 24 (change stamp) and 25 (password history), and the stamps a
/// save issues (docs/vault-format.md, docs/sync.md).
@Suite struct SyncFieldsTests {
    @Test func stampAndHistoryRoundTripAsTags24And25() throws {
        var item = sampleItem(1)
        let plain = encoded([item]).byteCount
        item.changeStamp = ChangeStamp(wallMilliseconds: 1_800_000_000_123, counter: 7, node: 0xDEAD_BEEF, issuedFor: item.modificationDate)
        item.passwordHistory = [PasswordHistoryEntry(password: Secret(utf8: "older"), replaced: Date(timeIntervalSince1970: 1_790_000_000)),
                                PasswordHistoryEntry(password: Secret(utf8: ""), replaced: Date(timeIntervalSince1970: 1_780_000_000))]
        let bytes = encoded([item])
        // Tag 24: 1 + 1 + 16 bytes; tag 25: 1 + 1 + (1 + 2·8 + 1 + 5 + 1 + 0); the record's
        // length prefix grows from one byte to two (the record passes 127 bytes).
        #expect(bytes.byteCount == plain + 18 + 26 + 1)
        let decoded = try RecordCodec.decode(bytes)
        #expect(decoded == [item])
        #expect(decoded[0].changeStamp?.counter == 7 && decoded[0].changeStamp?.node == 0xDEAD_BEEF)
        #expect(decoded[0].changeStamp?.issuedFor == item.modificationDate)
        #expect(decoded[0].passwordHistory.map { $0.password.unsafeString() } == ["older", ""])
        #expect(decoded[0].passwordHistory[0].replaced == Date(timeIntervalSince1970: 1_790_000_000))
    }

    @Test func aRecordWithoutAStampReadsWithItsFallbackAndKeepsItsBytes() throws {
        let item = sampleItem(2)
        let bytes = encoded([item])
        let decoded = try RecordCodec.decode(bytes)
        #expect(decoded[0].changeStamp == ChangeStamp.fallback(for: item.modificationDate))
        #expect(decoded[0].needsStamp == false)
        var again = decoded
        #expect(RecordCodec.encode(&again).hasSameBytes(as: bytes), "the fallback stamp is not written")
    }

    @Test func aSaveStampsChangedRecordsAfterTheLatestStampEvenWithAClockBehind() throws {
        let vault = TemporaryVault()
        defer { vault.cleanUp() }
        let session = try vault.directory.create(password: testPassword, limits: .minimum)
        let ahead = Date().addingTimeInterval(3600)
        session.clock = { ahead }
        try session.modify { $0.shared = [sampleItem(1), sampleItem(2)] }
        let first = try session.contents().shared.map { $0.changeStamp! }
        #expect(first[0].wallMilliseconds == ChangeStamp.milliseconds(ahead) && first[1].precedes(first[0]) == false)
        // An hour behind that: the edit still orders after every stamp the store holds.
        session.clock = { Date() }
        try session.modify { contents in
            contents.shared[0].label = "edited"
            contents.shared[0].modificationDate = Date()
        }
        let after = try session.contents().shared
        #expect(first[1].precedes(after[0].changeStamp!) && first[0].precedes(after[0].changeStamp!))
        #expect(after[1].changeStamp == first[1], "an unchanged record keeps its stamp")
        _ = try session.add(to: .shared) { _ in sampleItem(3) }
        #expect(after[0].changeStamp!.precedes(try session.contents().shared[2].changeStamp!))
        session.lock()
    }
}
