import Foundation
import Testing
import KeyshelfCrypto
@testable import KeyshelfTransfer

/// Hostile KDBX headers: key-derivation settings that would run for hours
/// are refused before any derivation starts (docs/import.md, "KeePassXC databases").
@Suite struct KDBXLimitTests {
    static func le(_ value: UInt64, _ count: Int) -> [UInt8] { (0..<count).map { UInt8(truncatingIfNeeded: value >> (8 * UInt64($0))) } }

    /// A KDBX 3.1 outer header (AES, AES-KDF with `rounds`), ending the file.
    static func kdbx3(rounds: UInt64) -> [UInt8] {
        func field(_ id: UInt8, _ data: [UInt8]) -> [UInt8] { [id] + le(UInt64(data.count), 2) + data }
        return SourceReader.kdbxSignature + le(1, 2) + le(3, 2) + field(2, KDBXHeader.aesCipher) + field(4, [UInt8](repeating: 1, count: 32))
            + field(5, [UInt8](repeating: 2, count: 32)) + field(6, le(rounds, 8)) + field(7, [UInt8](repeating: 3, count: 16)) + field(0, [])
    }

    /// A KDBX 4 outer header (AES) whose KDF is `uuid` with 8-byte unsigned `parameters`.
    static func kdbx4(uuid: [UInt8], parameters: [(String, UInt64)]) -> [UInt8] {
        func field(_ id: UInt8, _ data: [UInt8]) -> [UInt8] { [id] + le(UInt64(data.count), 4) + data }
        func item(_ type: UInt8, _ name: String, _ value: [UInt8]) -> [UInt8] {
            [type] + le(UInt64(name.utf8.count), 4) + Array(name.utf8) + le(UInt64(value.count), 4) + value
        }
        var dictionary: [UInt8] = [0x00, 0x01] + item(0x42, "$UUID", uuid) + item(0x42, "S", [UInt8](repeating: 4, count: 32))
        for (name, value) in parameters { dictionary += name == "V" ? item(0x04, name, le(value, 4)) : item(0x05, name, le(value, 8)) }
        dictionary.append(0)
        return SourceReader.kdbxSignature + le(0, 2) + le(4, 2) + field(2, KDBXHeader.aesCipher) + field(3, le(1, 4))
            + field(4, [UInt8](repeating: 1, count: 32)) + field(7, [UInt8](repeating: 3, count: 16)) + field(11, dictionary) + field(0, [])
    }

    static func read(_ bytes: [UInt8]) throws {
        _ = try bytes.withUnsafeBytes { try KDBXReader.read($0, path: "x.kdbx", password: Secret(utf8: "pw")) }
    }

    static func refusedNaming(_ words: String, _ bytes: [UInt8]) {
        #expect {
            try read(bytes)
        } throws: { error in
            guard case .unsupportedSource(_, let what, let hint)? = error as? TransferError else { return false }
            return what.contains(words) && hint.contains("lower its")
        }
    }

    @Test(arguments: [KDBXReader.maxAESRounds + 1, 1 << 63, UInt64.max])
    func aesKDFRoundsPastTheCeilingAreRefused(rounds: UInt64) {
        Self.refusedNaming("AES-KDF", Self.kdbx3(rounds: rounds))
        Self.refusedNaming("AES-KDF", Self.kdbx4(uuid: KDBXHeader.aesKDF, parameters: [("R", rounds)]))
    }

    @Test(arguments: [
        (UInt64(UInt32.max), UInt64(1 << 30), UInt64(256)),
        (KDBXReader.maxArgon2Iterations + 1, UInt64(1 << 20), UInt64(1)),
        (UInt64(17), UInt64(1 << 30), UInt64(1)),
        (UInt64(2), UInt64(1 << 20), KDBXReader.maxArgon2Parallelism + 1),
        (UInt64(2), UInt64(1 << 31), UInt64(1)),
    ])
    func argon2SettingsPastTheCeilingsAreRefused(iterations: UInt64, memory: UInt64, parallelism: UInt64) {
        for uuid in [KDBXHeader.argon2d, KDBXHeader.argon2id] {
            Self.refusedNaming("Argon2", Self.kdbx4(uuid: uuid, parameters: [("I", iterations), ("M", memory), ("P", parallelism), ("V", 0x13)]))
        }
    }

    @Test func settingsWithinTheCeilingsAreDerivedAndTheHeaderIsThenChecked() {
        #expect(throws: TransferError.self) { try Self.read(Self.kdbx3(rounds: 10)) }
        #expect {
            try Self.read(Self.kdbx4(uuid: KDBXHeader.argon2id, parameters: [("I", 1), ("M", 1 << 16), ("P", 1), ("V", 0x13)]))
        } throws: { error in
            if case .unsupportedSource? = error as? TransferError { return false }
            return true
        }
    }

    /// zeros-65mib.gz: `head -c $((65 << 20)) /dev/zero | gzip -9`, 66 KB that inflate past the 64 MiB cap.
    @Test func aPayloadInflatingPastTheCapIsTooLargeNotDamaged() throws {
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: FixtureFiles.path("zeros-65mib.gz"))))
        #expect(throws: Gzip.Failure.tooLarge) { try bytes.withUnsafeBytes { try Gzip.inflate($0, limit: KDBXReader.maxXMLBytes) } }
        let inflated = try bytes.withUnsafeBytes { try Gzip.inflate($0, limit: 66 << 20) }
        #expect(inflated.byteCount == 65 << 20)
        #expect(throws: Gzip.Failure.damaged) { try Array(bytes.dropLast(9)).withUnsafeBytes { try Gzip.inflate($0, limit: 66 << 20) } }
    }

    @Test func aCreationTimeOutsideYearsOneTo9999IsDroppedNotATrap() {
        #expect(KDBXEntries.kdbx4Time([0, 0, 0, 0, 0, 0, 0, 0x80]) == nil)
        #expect(KDBXEntries.kdbx4Time([0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F]) == nil)
        #expect(KDBXEntries.kdbx4Time(KDBXLimitTests.le(62_135_596_800, 8)) == Date(timeIntervalSince1970: 0))
    }
}
