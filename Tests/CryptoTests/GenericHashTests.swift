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

    @Test func keyedKnownAnswer() {
        let key = SecureBytes(copying: Array(0..<32) as [UInt8])
        #expect(Self.hex(Array("abc".utf8).withUnsafeBytes { GenericHash.hash($0, key: key) })
                == "d63a32d3e44738d7907f964316c241adaba0abfeabc32349677578a15a203f7f")
    }
}
