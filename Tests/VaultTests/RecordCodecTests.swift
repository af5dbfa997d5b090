import Foundation
import Testing
import KeyshelfCrypto
@testable import KeyshelfVault

@Suite struct RecordCodecTests {
    @Test func everyFieldRoundTrips() throws {
        let items = KnownAnswerTests.local + KnownAnswerTests.shared + (0..<50).map { sampleItem($0) }
        #expect(try RecordCodec.decode(encoded(items)) == items)
        #expect(try RecordCodec.decode(encoded([])).isEmpty)
    }

    @Test func ignoredFindingsRoundTripAsTag23() throws {
        var item = Item(id: UUID(), account: "me", server: "a.example", password: Secret(utf8: "pw"))
        let plain = encoded([item]).byteCount
        item.ignoredFindings = [.weak, .insecure]
        let bytes = encoded([item])
        #expect(bytes.byteCount == plain + 3)
        #expect(bytes.withUnsafeBytes { Array($0.suffix(3)) } == [23, 1, 0x09])
        #expect(try RecordCodec.decode(bytes) == [item])
    }

    @Test func passwordsAreSlicesOfTheDecodedBuffer() throws {
        let buffer = encoded([sampleItem(1), sampleItem(2)])
        let items = try RecordCodec.decode(buffer)
        buffer.wipe()
        // Wiping the one buffer wipes every password decoded from it.
        #expect(items.allSatisfy { $0.password?.withUnsafeBytes { $0.allSatisfy { $0 == 0 } } == true })
    }

    @Test func unknownFieldsAreSkipped() throws {
        let item = Item(id: UUID(), account: "me", server: "a.example", password: Secret(utf8: "pw"))
        let known = encoded([item])
        let bytes = known.withUnsafeBytes { Array($0) }
        // Re-frame the record with a field of an unknown tag (200) appended.
        let fields = Array(bytes[2...])          // count and record length: one varint byte each here
        #expect(bytes[0] == 1 && Int(bytes[1]) == fields.count)
        let extra: [UInt8] = [200, 3, 0xAA, 0xBB, 0xCC]
        let newer = SecureBytes(copying: [1, UInt8(fields.count + extra.count)] + fields + extra)
        #expect(try RecordCodec.decode(newer) == [item])
    }

    @Test func emptyFieldsTakeNoSpace() {
        let bare = Item(id: UUID(), account: "", protocol: "", authenticationType: "", password: nil)
        // id (18) + class (3) + two dates (20) + accessible and access control (6).
        #expect(encoded([bare]).byteCount == 1 + 1 + 47)
    }

    @Test func malformedPlaintextIsAnErrorNotACrash() {
        let valid = encoded([sampleItem(1), sampleItem(2)]).withUnsafeBytes { Array($0) }
        // Every truncation, and every byte replaced by values that stress the varints.
        for length in 0..<valid.count {
            #expect(throws: RecordCodec.DecodeError.self) { try RecordCodec.decode(SecureBytes(copying: valid.prefix(length))) }
        }
        for offset in valid.indices {
            for value: UInt8 in [0x00, 0x01, 0x7F, 0x80, 0xFF, valid[offset] ^ 0x40] {
                var bytes = valid
                bytes[offset] = value
                // Either decodes to something or throws DecodeError; never traps.
                _ = try? RecordCodec.decode(SecureBytes(copying: bytes))
            }
        }
        #expect(throws: RecordCodec.DecodeError.self) { try RecordCodec.decode(SecureBytes(copying: [5])) }
        #expect(throws: RecordCodec.DecodeError.self) { try RecordCodec.decode(SecureBytes(copying: [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01])) }
    }
}

/// The encoding of `items` (a copy is rebased, not the caller's items).
func encoded(_ items: [Item]) -> SecureBytes {
    var copy = items
    return RecordCodec.encode(&copy)
}

extension RecordCodecTests {
    @Test func encodingMovesPasswordsIntoTheNewBuffer() throws {
        let original = [sampleItem(1), sampleItem(2)]
        var items = original
        let buffer = RecordCodec.encode(&items)
        #expect(items == original)
        buffer.wipe()
        #expect(items.allSatisfy { $0.password?.withUnsafeBytes { $0.allSatisfy { $0 == 0 } } == true })
        #expect(original[0].password == Secret(utf8: "pw-1-\u{1F511}"))
    }
}
