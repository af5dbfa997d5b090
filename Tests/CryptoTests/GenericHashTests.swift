import Foundation
import Testing
@testable import KeyshelfCrypto

/// BLAKE2b vectors computed with Python's hashlib.blake2b (RFC 7693).
@Suite struct GenericHashTests {
    static func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    @Test func knownAnswers() {
        #expect(Self.hex([UInt8]().withUnsafeBytes { GenericHash.hash($0, byteCount: 16) }) == "cae66941d9efbd404e4d88758ea67670")
        #expect(Self.hex(Array("abc".utf8).withUnsafeBytes { GenericHash.hash($0, byteCount: 16) }) == "cf4ab791c62b8d2b2109c90275287816")
        #expect(Self.hex(Array("abc".utf8).withUnsafeBytes { GenericHash.hash($0) })
                == "bddd813c634239723171ef3fee98579b94964e3bb1cb3e427262c8c068d52319")
    }
}
