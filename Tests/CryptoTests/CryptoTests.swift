import Testing
@testable import KeyshelfCrypto

@Suite struct SecretStreamTests {
    let key = Random.secureBytes(SecretStream.keyByteCount)

    @Test(arguments: [0, 1, 63, 64, 65, 1000])
    func roundTripAtChunkBoundaries(length: Int) throws {
        let plain = SecureBytes(copying: (0..<length).map { UInt8($0 & 0xff) })
        let sealed = try SecretStream.seal(plain, key: key, chunkByteCount: 64, associatedData: [1, 2, 3])
        #expect(sealed.count == SecretStream.sealedByteCount(plaintextByteCount: length, chunkByteCount: 64))
        let opened = try sealed.withUnsafeBytes { try SecretStream.open($0, key: key, chunkByteCount: 64, associatedData: [1, 2, 3]) }
        #expect(opened == plain)
    }

    @Test(arguments: [0, 64, 200])
    func sealingPieceByPieceGivesTheSameLayout(length: Int) throws {
        let plain = SecureBytes(copying: (0..<length).map { UInt8($0 & 0xff) })
        var pieces: [[UInt8]] = []
        try SecretStream.seal(plain, key: key, chunkByteCount: 64, associatedData: [4]) { pieces.append(Array($0)) }
        // The stream header, then one piece per chunk (at least one, FINAL last).
        #expect(pieces.first?.count == SecretStream.headerByteCount)
        #expect(pieces.count == 1 + max(1, (length + 63) / 64))
        #expect(pieces.dropFirst().allSatisfy { $0.count <= 64 + SecretStream.chunkOverheadByteCount })
        let sealed = pieces.flatMap { $0 }
        #expect(sealed.count == SecretStream.sealedByteCount(plaintextByteCount: length, chunkByteCount: 64))
        let opened = try sealed.withUnsafeBytes { try SecretStream.open($0, key: key, chunkByteCount: 64, associatedData: [4]) }
        #expect(opened == plain)
    }

    @Test func anErrorWhileSealingPieceByPieceStopsTheSeal() {
        struct Full: Error {}
        var calls = 0
        #expect(throws: Full.self) {
            try SecretStream.seal(SecureBytes(byteCount: 300), key: key, chunkByteCount: 64, associatedData: []) { _ in
                calls += 1
                if calls == 2 { throw Full() }
            }
        }
        #expect(calls == 2)
    }

    @Test func droppingTheFinalChunkIsDetected() throws {
        let plain = SecureBytes(copying: [UInt8](repeating: 7, count: 200))
        let sealed = try SecretStream.seal(plain, key: key, chunkByteCount: 64, associatedData: [])
        // Cut exactly at a chunk boundary: every remaining chunk still authenticates.
        let cut = Array(sealed.prefix(SecretStream.headerByteCount + 2 * (64 + SecretStream.chunkOverheadByteCount)))
        #expect(throws: CryptoError.truncatedStream) {
            try cut.withUnsafeBytes { try SecretStream.open($0, key: key, chunkByteCount: 64, associatedData: []) }
        }
    }

    @Test func otherAssociatedDataIsRejected() throws {
        let sealed = try SecretStream.seal(SecureBytes(copying: [1, 2, 3]), key: key, chunkByteCount: 64, associatedData: [1])
        #expect(throws: CryptoError.authenticationFailed) {
            try sealed.withUnsafeBytes { try SecretStream.open($0, key: key, chunkByteCount: 64, associatedData: [2]) }
        }
    }
}

@Suite struct AEADTests {
    @Test func wrapAndUnwrap() throws {
        let key = Random.secureBytes(AEAD.keyByteCount)
        let nonce = Random.bytes(AEAD.nonceByteCount)
        let message = Random.secureBytes(32)
        let sealed = try AEAD.seal(message, key: key, nonce: nonce, associatedData: [9])
        #expect(try AEAD.open(sealed, key: key, nonce: nonce, associatedData: [9]) == message)
        #expect(throws: CryptoError.authenticationFailed) {
            try AEAD.open(sealed, key: Random.secureBytes(32), nonce: nonce, associatedData: [9])
        }
    }
}

@Suite struct PasswordHashTests {
    @Test func sameInputsGiveSameKeyAndOtherSaltDiffers() throws {
        let salt = Random.bytes(PasswordHash.saltByteCount)
        let pw = Secret(utf8: "correct horse")
        let a = try PasswordHash.deriveKey(password: pw, salt: salt, limits: .minimum)
        let b = try PasswordHash.deriveKey(password: pw, salt: salt, limits: .minimum)
        let c = try PasswordHash.deriveKey(password: pw, salt: Random.bytes(16), limits: .minimum)
        #expect(a == b)
        #expect(a != c)
    }

    @Test func wrongSaltLengthThrows() {
        #expect(throws: CryptoError.invalidLength(what: "salt", expectedByteCount: 16, actualByteCount: 3)) {
            try PasswordHash.deriveKey(password: Secret(utf8: "x"), salt: [1, 2, 3], limits: .minimum)
        }
    }
}

@Suite struct SecretTests {
    @Test func slicesShareOneBufferAndCompareByContent() {
        let storage = SecureBytes(copying: Array("abcabc".utf8))
        let first = Secret(storage: storage, range: 0..<3)
        let second = Secret(storage: storage, range: 3..<6)
        #expect(first == second)
        #expect(first.unsafeString() == "abc")
        #expect(first != Secret(utf8: "abd"))
        #expect(first.detached() == first)
    }
}

extension SecretTests {
    /// A difference anywhere (in a 64-byte block or in the tail) makes buffers unequal.
    @Test(arguments: [1, 63, 64, 65, 200])
    func aDifferenceAtAnyOffsetIsSeen(length: Int) {
        let bytes = (0..<length).map { UInt8($0 & 0xff) }
        #expect(SecureBytes(copying: bytes) == SecureBytes(copying: bytes))
        for offset in 0..<length {
            var other = bytes
            other[offset] ^= 0x01
            #expect(SecureBytes(copying: bytes) != SecureBytes(copying: other))
        }
        #expect(SecureBytes(copying: bytes) != SecureBytes(copying: bytes.dropLast()))
        #expect(SecureBytes(byteCount: 0) == SecureBytes(byteCount: 0))
    }
}
