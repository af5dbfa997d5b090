import Foundation
import Testing
import KeyshelfCrypto
@testable import KeyshelfVault

@Suite struct RecordCodecTests {
    @Test func everyFieldRoundTrips() throws {
        let items = KnownAnswerTests.local + KnownAnswerTests.shared + (0..<50).map { sampleItem($0) }
        #expect(try RecordCodec.decode(RecordCodec.encode(items)) == items)
        #expect(try RecordCodec.decode(RecordCodec.encode([])).isEmpty)
    }

    @Test func passwordsAreSlicesOfTheDecodedBuffer() throws {
        let buffer = RecordCodec.encode([sampleItem(1), sampleItem(2)])
        let items = try RecordCodec.decode(buffer)
        buffer.wipe()
        // Wiping the one buffer wipes every password decoded from it.
        #expect(items.allSatisfy { $0.password?.withUnsafeBytes { $0.allSatisfy { $0 == 0 } } == true })
    }

    @Test func unknownFieldsAreSkipped() throws {
        let item = Item(id: UUID(), account: "me", server: "a.example", password: Secret(utf8: "pw"))
        let known = RecordCodec.encode([item])
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
        #expect(RecordCodec.encode([bare]).byteCount == 1 + 1 + 47)
    }

    @Test func malformedPlaintextIsAnErrorNotACrash() {
        var generator = SystemRandomNumberGenerator()
        let valid = RecordCodec.encode([sampleItem(1), sampleItem(2)]).withUnsafeBytes { Array($0) }
        for n in 0..<2000 {
            var bytes = valid
            if n % 2 == 0 {
                bytes = Array(bytes.prefix(Int.random(in: 0..<bytes.count, using: &generator)))
            } else {
                bytes[Int.random(in: 0..<bytes.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
            }
            // Either decodes to something or throws DecodeError; never traps.
            _ = try? RecordCodec.decode(SecureBytes(copying: bytes))
        }
        #expect(throws: RecordCodec.DecodeError.self) { try RecordCodec.decode(SecureBytes(copying: [5])) }
        #expect(throws: RecordCodec.DecodeError.self) { try RecordCodec.decode(SecureBytes(copying: [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01])) }
    }
}
