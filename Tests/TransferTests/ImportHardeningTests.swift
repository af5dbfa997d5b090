import Foundation
import Testing
import KeyshelfCredentials
import KeyshelfCrypto
import KeyshelfVault
@testable import KeyshelfTransfer

/// Hostile import files found in a security review: each must be refused or
/// reported clearly, never crash, hang or store what export cannot write back.
@Suite struct ImportHardeningTests {
    static func json(_ bytes: [UInt8]) throws -> ImportSource {
        let secure = SecureBytes(byteCount: bytes.count)
        secure.withUnsafeMutableBytes { $0.copyBytes(from: bytes) }
        return try secure.withUnsafeBytes { try BitwardenJSONReader.read($0, path: "x.json") }
    }

    static func json(_ text: String) throws -> ImportSource { try json(Array(text.utf8)) }

    @Test(arguments: ["1e999", "-1e999", "-9.3e18", "9.3e18", "1.5", "-0.5"])
    func aNonIntegralOrHugeItemTypeIsSkippedAsUnknown(type: String) throws {
        let source = try Self.json("{\"items\":[{\"type\":\(type),\"name\":\"x\"}]}")
        #expect(source.skipped.map(\.reason) == ["Bitwarden item of an unknown type, not a web login"])
    }

    @Test func anIntegralUnknownTypeIsNamed() throws {
        let source = try Self.json("{\"items\":[{\"type\":7,\"name\":\"x\"},{\"name\":\"y\"}]}")
        #expect(source.skipped.map(\.reason) == ["Bitwarden type 7 item, not a web login", "Bitwarden untyped item, not a web login"])
    }
}
