import Foundation
import KeyshelfCrypto

/// Opens a KeePass 2 database (KDBX 3.1 or 4, what KeePassXC writes) with its
/// password and reads its entries (issue 17 item 4; docs/import.md, "KeePassXC databases").
///
/// Key: SHA-256(SHA-256(password)), transformed by the AES-KDF (3.1, 4) or
/// Argon2d / Argon2id (4); payload key SHA-256(master seed ‖ transformed key).
/// KDBX 4: header SHA-256 and HMAC-SHA-256 checked (HMAC key SHA-512(master
/// seed ‖ transformed key ‖ 0x01)), then HMAC-checked blocks; KDBX 3.1: the
/// stream start bytes, then SHA-256-checked blocks. Payload AES-256-CBC or
/// ChaCha20; gzip; the XML's protected values under the inner stream cipher
/// (Salsa20 or ChaCha20). Key files are not read.
enum KDBXReader {
    /// The largest KDF memory cost accepted: 1 GiB (KeePassXC's default is 64 MiB).
    static let maxArgon2Memory: UInt64 = 1 << 30
    /// The most AES-KDF rounds accepted: 2 × 10^8 (about a minute here; KeePassXC's one-second benchmark gives a few million; a hostile 2^63 would never end).
    static let maxAESRounds: UInt64 = 200_000_000
    /// The most Argon2 passes accepted: 1000 (KeePassXC's default is 10).
    static let maxArgon2Iterations: UInt64 = 1000
    /// The most Argon2 work accepted, iterations × memory: 16 GiB (16 passes over 1 GiB, 256 over 64 MiB; under a minute here).
    static let maxArgon2Work: UInt64 = 16 << 30
    /// The most Argon2 lanes accepted: 256 (KeePassXC offers at most its thread count; lanes add threads, not work).
    static let maxArgon2Parallelism: UInt64 = 256
    /// The largest inflated XML: 64 MiB (a database of 100 000 entries is about 100 MiB less; `XMLParser` needs several times this).
    static let maxXMLBytes = 64 << 20

    static func read(_ bytes: UnsafeRawBufferPointer, path: String, password: Secret) throws -> ImportSource {
        let damaged = { (reason: String) in TransferError.damagedDatabase(path: path, reason: reason) }
        let header: KDBXHeader
        do { header = try KDBXHeader(bytes) } catch let error as KDBXHeader.Malformed { throw damaged(error.reason) }
        guard let seed = header.fields[4], seed.count == 32, let iv = header.fields[7], let cipher = header.fields[2] else {
            throw damaged("the header lacks its master seed, IV or cipher")
        }
        guard cipher == KDBXHeader.aesCipher || cipher == KDBXHeader.chachaCipher else {
            throw TransferError.unsupportedSource(path: path, what: "a KeePass database encrypted with Twofish or another cipher",
                                                  hint: "change its encryption to AES-256 or ChaCha20 in KeePassXC (Database Security), or export CSV")
        }
        let composite = password.withUnsafeBytes { pw in KeePassCrypto.sha256([pw]).withUnsafeBytes { KeePassCrypto.sha256([$0]) } }
        let transformed = try transformedKey(header, composite: composite, path: path)
        let key = seed.withUnsafeBytes { s in transformed.withUnsafeBytes { KeePassCrypto.sha256([s, $0]) } }
        var payload: SecureBytes
        var inner: (id: UInt64, key: [UInt8])
        var xmlStart = 0
        if header.major == 4 {
            let blocks = try hmacBlocks(bytes, header: header, seed: seed, transformed: transformed, path: path)
            payload = try decrypt(blocks, cipher: cipher, key: key, iv: iv, path: path)
            if KDBXHeader.uint(header.fields[3]) == 1 {
                payload = try inflate(payload, path: path)
            }
            (xmlStart, inner) = try innerHeader(payload, path: path)
        } else {
            let plain = try decrypt(SecureBytes(copying: UnsafeRawBufferPointer(rebasing: bytes[header.length...])),
                                    cipher: cipher, key: key, iv: iv, path: path)
            guard let start = header.fields[9], plain.byteCount >= 32,
                  plain.withUnsafeBytes({ Array($0[0..<32]) }) == start else { throw TransferError.wrongSourcePassword(path: path) }
            payload = try hashedBlocks(plain, path: path)
            if KDBXHeader.uint(header.fields[3]) == 1 {
                payload = try inflate(payload, path: path)
            }
            inner = (KDBXHeader.uint(header.fields[10]) ?? 0, header.fields[8] ?? [])
        }
        let stream = try innerStream(id: inner.id, key: inner.key, path: path)
        return try KDBXEntries.read(xml: payload, from: xmlStart, stream: stream, path: path, version: header.major)
    }

    private static func transformedKey(_ header: KDBXHeader, composite: SecureBytes, path: String) throws -> SecureBytes {
        let damaged = TransferError.damagedDatabase(path: path, reason: "its key derivation parameters are damaged")
        if header.major == 3 {
            guard let seed = header.fields[5], let rounds = KDBXHeader.uint(header.fields[6]) else { throw damaged }
            try checkAESRounds(rounds, path: path)
            guard let out = seed.withUnsafeBytes({ KeePassCrypto.aesKDF(key: composite, seed: $0, rounds: rounds) }) else { throw damaged }
            return out
        }
        let p = header.kdfParameters
        guard let uuid = p["$UUID"], let salt = p["S"] else { throw damaged }
        if uuid == KDBXHeader.aesKDF || uuid == KDBXHeader.aesKDF4 {
            guard let rounds = KDBXHeader.uint(p["R"]) else { throw damaged }
            try checkAESRounds(rounds, path: path)
            guard let out = salt.withUnsafeBytes({ KeePassCrypto.aesKDF(key: composite, seed: $0, rounds: rounds) }) else { throw damaged }
            return out
        }
        guard uuid == KDBXHeader.argon2d || uuid == KDBXHeader.argon2id else {
            throw TransferError.unsupportedSource(path: path, what: "a KeePass database with an unknown key derivation",
                                                  hint: "choose Argon2 or AES-KDF in KeePassXC (Database Security), or export CSV")
        }
        guard let iterations = KDBXHeader.uint(p["I"]), let memory = KDBXHeader.uint(p["M"]),
              let parallelism = KDBXHeader.uint(p["P"]), let version = KDBXHeader.uint(p["V"]) else { throw damaged }
        guard memory <= maxArgon2Memory, iterations <= maxArgon2Iterations, iterations * memory <= maxArgon2Work,
              parallelism <= maxArgon2Parallelism else {
            throw TransferError.unsupportedSource(
                path: path, what: "a KeePass database whose Argon2 settings ask for more than keyshelf derives "
                    + "(at most 1 GiB of memory, \(maxArgon2Iterations) iterations, iterations × memory 16 GiB, \(maxArgon2Parallelism) threads)",
                hint: "lower its memory usage, transform rounds or threads in KeePassXC (Database Security), or export CSV")
        }
        guard let out = salt.withUnsafeBytes({
            KeePassCrypto.argon2(uuid == KDBXHeader.argon2d ? .d : .id, password: composite, salt: $0, iterations: UInt32(iterations),
                                 memoryBytes: memory, parallelism: UInt32(parallelism), version: UInt32(version))
        }) else { throw damaged }
        return out
    }

    /// The gzip payload inflated, refused past `maxXMLBytes`.
    private static func inflate(_ payload: SecureBytes, path: String) throws -> SecureBytes {
        do {
            return try payload.withUnsafeBytes { try Gzip.inflate($0, limit: maxXMLBytes) }
        } catch Gzip.Failure.tooLarge {
            throw TransferError.unsupportedSource(
                path: path, what: "a KeePass database whose content inflates to more than \(maxXMLBytes >> 20) MiB of XML",
                hint: "remove attachments or history in KeePassXC, or export CSV")
        } catch {
            throw TransferError.damagedDatabase(path: path, reason: "its compressed content is damaged")
        }
    }

    /// Refuses AES-KDF `rounds` past `maxAESRounds` before any are run.
    private static func checkAESRounds(_ rounds: UInt64, path: String) throws {
        guard rounds <= maxAESRounds else {
            throw TransferError.unsupportedSource(
                path: path, what: "a KeePass database whose AES-KDF asks for more than 200,000,000 transform rounds",
                hint: "lower its transform rounds in KeePassXC (Database Security), or export CSV")
        }
    }

    private static func le64(_ value: UInt64) -> [UInt8] { (0..<8).map { UInt8(truncatingIfNeeded: value >> (8 * UInt64($0))) } }
    private static func le32(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * UInt32($0))) } }

    /// KDBX 4: checks the header hash and HMAC, then joins the HMAC-checked blocks after them.
    private static func hmacBlocks(_ bytes: UnsafeRawBufferPointer, header: KDBXHeader, seed: [UInt8],
                                   transformed: SecureBytes, path: String) throws -> SecureBytes {
        let headerBytes = UnsafeRawBufferPointer(rebasing: bytes[0..<header.length])
        guard bytes.count >= header.length + 64 else { throw TransferError.damagedDatabase(path: path, reason: "it is truncated") }
        let hash = KeePassCrypto.sha256([headerBytes])
        guard hash.withUnsafeBytes({ Array($0) }) == Array(bytes[header.length..<header.length + 32]) else {
            throw TransferError.damagedDatabase(path: path, reason: "its header does not match its checksum")
        }
        let base = seed.withUnsafeBytes { s in transformed.withUnsafeBytes { t in [UInt8(1)].withUnsafeBytes { KeePassCrypto.sha512([s, t, $0]) } } }
        func blockKey(_ index: UInt64) -> SecureBytes {
            le64(index).withUnsafeBytes { i in base.withUnsafeBytes { KeePassCrypto.sha512([i, $0]) } }
        }
        let headerMAC = blockKey(.max).withUnsafeBytes { KeePassCrypto.hmacSHA256(key: $0, [headerBytes]) }
        guard KeePassCrypto.equalMACs(headerMAC, UnsafeRawBufferPointer(rebasing: bytes[(header.length + 32)..<(header.length + 64)])) else {
            throw TransferError.wrongSourcePassword(path: path)
        }
        let out = SecureTextBuffer()
        var at = header.length + 64
        var index: UInt64 = 0
        while true {
            guard at + 36 <= bytes.count else { throw TransferError.damagedDatabase(path: path, reason: "it is truncated") }
            let size = Int(KDBXHeader.uint(bytes, at + 32, 4))
            guard at + 36 + size <= bytes.count else { throw TransferError.damagedDatabase(path: path, reason: "it is truncated") }
            let data = UnsafeRawBufferPointer(rebasing: bytes[(at + 36)..<(at + 36 + size)])
            let mac = blockKey(index).withUnsafeBytes { k in
                le64(index).withUnsafeBytes { i in le32(UInt32(size)).withUnsafeBytes { KeePassCrypto.hmacSHA256(key: k, [i, $0, data]) } }
            }
            guard KeePassCrypto.equalMACs(mac, UnsafeRawBufferPointer(rebasing: bytes[at..<(at + 32)])) else {
                throw TransferError.damagedDatabase(path: path, reason: "block \(index) does not match its HMAC")
            }
            if size == 0 { return out.contents() }
            out.append(data)
            at += 36 + size
            index += 1
        }
    }

    /// KDBX 3.1: joins the SHA-256-checked blocks after the 32 stream start bytes.
    private static func hashedBlocks(_ plain: SecureBytes, path: String) throws -> SecureBytes {
        try plain.withUnsafeBytes { bytes in
            let out = SecureTextBuffer()
            var at = 32
            while true {
                guard at + 40 <= bytes.count else { throw TransferError.damagedDatabase(path: path, reason: "it is truncated") }
                let size = Int(KDBXHeader.uint(bytes, at + 36, 4))
                guard at + 40 + size <= bytes.count else { throw TransferError.damagedDatabase(path: path, reason: "it is truncated") }
                if size == 0 { return out.contents() }
                let data = UnsafeRawBufferPointer(rebasing: bytes[(at + 40)..<(at + 40 + size)])
                guard KeePassCrypto.sha256([data]).withUnsafeBytes({ Array($0) }) == Array(bytes[(at + 4)..<(at + 36)]) else {
                    throw TransferError.damagedDatabase(path: path, reason: "a block does not match its checksum")
                }
                out.append(data)
                at += 40 + size
            }
        }
    }

    private static func decrypt(_ data: SecureBytes, cipher: [UInt8], key: SecureBytes, iv: [UInt8], path: String) throws -> SecureBytes {
        if cipher == KDBXHeader.chachaCipher {
            guard iv.count == 12 else { throw TransferError.damagedDatabase(path: path, reason: "its ChaCha20 IV is not 12 bytes") }
            let out = data.copy(range: 0..<data.byteCount)
            out.withUnsafeMutableBytes { KeePassCrypto.StreamCipher(.chacha20, key: key, nonce: iv).apply($0) }
            return out
        }
        guard let out = data.withUnsafeBytes({ d in iv.withUnsafeBytes { KeePassCrypto.aes256CBCDecrypt(key: key, iv: $0, d) } }) else {
            throw TransferError.wrongSourcePassword(path: path)
        }
        return out
    }

    /// KDBX 4's inner header (`id u8 · length u32 · data` until id 0): stream id, stream key; binaries skipped.
    /// Returns where the XML starts after it (not a copy: the payload may be tens of MiB).
    private static func innerHeader(_ payload: SecureBytes, path: String) throws -> (Int, (id: UInt64, key: [UInt8])) {
        try payload.withUnsafeBytes { bytes in
            var at = 0
            var id: UInt64 = 0
            var key: [UInt8] = []
            while true {
                guard at + 5 <= bytes.count else { throw TransferError.damagedDatabase(path: path, reason: "its inner header is truncated") }
                let field = bytes[at]
                let size = Int(KDBXHeader.uint(bytes, at + 1, 4))
                guard at + 5 + size <= bytes.count else { throw TransferError.damagedDatabase(path: path, reason: "its inner header is truncated") }
                let data = Array(bytes[(at + 5)..<(at + 5 + size)])
                at += 5 + size
                switch field {
                case 0: return (at, (id, key))
                case 1: id = KDBXHeader.uint(data) ?? 0
                case 2: key = data
                default: continue
                }
            }
        }
    }

    private static func innerStream(id: UInt64, key: [UInt8], path: String) throws -> KeePassCrypto.StreamCipher? {
        switch id {
        case 0: return nil
        case 2:
            let k = key.withUnsafeBytes { KeePassCrypto.sha256([$0]) }
            return KeePassCrypto.StreamCipher(.salsa20, key: k, nonce: [0xE8, 0x30, 0x09, 0x4B, 0x97, 0x20, 0x5D, 0x2A])
        case 3:
            let h = key.withUnsafeBytes { KeePassCrypto.sha512([$0]) }
            let nonce = h.withUnsafeBytes { Array($0[32..<44]) }
            return KeePassCrypto.StreamCipher(.chacha20, key: h.copy(range: 0..<32), nonce: nonce)
        default:
            throw TransferError.unsupportedSource(path: path, what: "a KeePass database with an unknown inner stream cipher", hint: "export CSV from KeePassXC")
        }
    }
}
