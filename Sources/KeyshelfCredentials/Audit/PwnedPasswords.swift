/// Where `compromised` is looked up: a Have I Been Pwned list of SHA-1 hashes.
public protocol PwnedPasswordsSource {
    /// How often each password of `digests` (20-byte SHA-1 digests) was seen
    /// in breaches; 0 for one not in the list. The result is parallel to `digests`.
    /// - Throws: `AuditError` when the source cannot be searched.
    func breachCounts(of digests: [[UInt8]]) throws -> [Int]
}

/// Hex helpers for the `HASH:COUNT` lines of the lists.
enum PwnedHex {
    private static let digits = Array("0123456789ABCDEF".utf8)

    /// The 40 upper-case hex digits of a 20-byte digest, as ASCII bytes.
    static func upperHex(_ digest: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(digest.count * 2)
        for b in digest {
            out.append(digits[Int(b >> 4)])
            out.append(digits[Int(b & 0xF)])
        }
        return out
    }

    /// `byte` upper-cased if it is an ASCII `a`–`f`, and whether it is a hex digit at all.
    static func normalized(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "A")...UInt8(ascii: "F"): byte
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - 32
        default: nil
        }
    }

    /// Parses a `HASH:COUNT` line (`hashLength` hex digits; CR LF or LF already cut):
    /// the upper-cased hash and the count, or nil when the line has another shape.
    static func parse(_ line: ArraySlice<UInt8>, hashLength: Int) -> (hash: [UInt8], count: Int)? {
        guard line.count > hashLength + 1, line[line.startIndex + hashLength] == UInt8(ascii: ":") else { return nil }
        var hash: [UInt8] = []
        hash.reserveCapacity(hashLength)
        for b in line.prefix(hashLength) {
            guard let n = normalized(b) else { return nil }
            hash.append(n)
        }
        var count = 0
        for b in line.dropFirst(hashLength + 1) {
            guard b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9"), count < Int.max / 10 - 9 else { return nil }
            count = count * 10 + Int(b - UInt8(ascii: "0"))
        }
        return (hash, count)
    }
}
