import Foundation
import KeyshelfCrypto
import Testing
@testable import KeyshelfCredentials

@Suite struct PasswordGeneratorTests {
    static let sets = [PasswordGenerator.lowercase, PasswordGenerator.uppercase, PasswordGenerator.digits]

    @Test func formatAndSetCoverage() {
        for _ in 0..<500 {
            let password = PasswordGenerator.generate()
            let bytes = password.withUnsafeBytes { Array($0) }
            #expect(bytes.count == 15)
            for (i, byte) in bytes.enumerated() {
                if i % 4 == 3 {
                    #expect(byte == UInt8(ascii: "-"))
                } else {
                    #expect(PasswordGenerator.alphabet.contains(byte))
                }
            }
            for set in Self.sets {
                #expect(bytes.contains(where: set.contains))
            }
        }
    }

    @Test func setsAreTheDesignsAndDisjoint() {
        #expect(String(decoding: PasswordGenerator.lowercase, as: UTF8.self) == "abcdefghkmnopqrstuvwxy")
        #expect(String(decoding: PasswordGenerator.uppercase, as: UTF8.self) == "ABCDEFGHJKLMNPQRSTUVWXYZ")
        #expect(String(decoding: PasswordGenerator.digits, as: UTF8.self) == "3456789")
        #expect(Set(PasswordGenerator.alphabet).count == 53)
        #expect(abs(log2(Self.validStringCount) - PasswordGenerator.entropyBits) < 0.01)
    }

    // MARK: - Uniformity over valid strings

    /// Σ over subsets T of `excluded`-able sets of (−1)^|T| (53 − |∪T|)^length:
    /// the number of strings of `length` over the alphabet that contain a
    /// character of every set in `required` (inclusion–exclusion).
    static func coveringCount(length: Int, required: [Int]) -> Double {
        let sizes = required.map { Double(sets[$0].count) }
        var total = 0.0
        for mask in 0..<(1 << sizes.count) {
            var missing = 0.0
            var sign = 1.0
            for (bit, size) in sizes.enumerated() where mask & (1 << bit) != 0 {
                missing += size
                sign = -sign
            }
            total += sign * pow(53 - missing, Double(length))
        }
        return total
    }

    static let validStringCount = coveringCount(length: 12, required: [0, 1, 2])

    /// P(a given position holds `c`) under the uniform distribution over valid
    /// strings: the other 11 positions must cover the two other sets.
    static let expected: [UInt8: Double] = {
        var out: [UInt8: Double] = [:]
        for (s, set) in sets.enumerated() {
            let others = [0, 1, 2].filter { $0 != s }
            let p = coveringCount(length: 11, required: others) / validStringCount
            for c in set { out[c] = p }
        }
        return out
    }()

    /// Chi-square threshold for 52 degrees of freedom at p = 1e-8 (per position).
    static let threshold = 130.8
    static let sampleCount = 60_000

    /// Per-position chi-square statistics of `samples` passwords from `generate`.
    static func chiSquares(samples: Int = sampleCount, _ generate: (UnsafeMutableRawBufferPointer) -> Void) -> [Double] {
        // Flat counts [position * 256 + byte], filled through pointers: the
        // loop runs 60k times in a debug build.
        var counts = [Int](repeating: 0, count: 12 * 256)
        var buffer = [UInt8](repeating: 0, count: 15)
        counts.withUnsafeMutableBufferPointer { counts in
            buffer.withUnsafeMutableBytes { bytes in
                for _ in 0..<samples {
                    generate(bytes)
                    for position in 0..<12 {
                        counts[position * 256 + Int(bytes[position + position / 3])] += 1
                    }
                }
            }
        }
        return (0..<12).map { position in
            PasswordGenerator.alphabet.reduce(0.0) { sum, c in
                let e = expected[c]! * Double(samples)
                let d = Double(counts[position * 256 + Int(c)]) - e
                return sum + d * d / e
            }
        }
    }

    @Test func expectationSumsToOne() {
        let total = PasswordGenerator.alphabet.reduce(0.0) { $0 + Self.expected[$1]! }
        #expect(abs(total - 1) < 1e-12)
        // Digits are rarer in the alphabet, so a valid string over-represents them.
        #expect(Self.expected[UInt8(ascii: "5")]! > 1.0 / 53)
    }

    @Test func everyPositionIsUniformOverValidStrings() {
        let stats = Self.chiSquares { PasswordGenerator.fill($0, uniform: Random.uniform) }
        for (position, chi) in stats.enumerated() {
            #expect(chi < Self.threshold, "position \(position): chi-square \(chi)")
        }
    }

    /// Every generator a user gets, as the program calls it: the CLI's
    /// (`generate`, `add --generate`, the login prompt's suggestion) and the
    /// TUI's. A `sodium_malloc` per password makes these slow in a debug
    /// build, hence half the samples: a byte-modulo draw still lifts a
    /// position's statistic to about 150 on average (52 when unbiased, 130.8
    /// the threshold), so some of the 12 positions exceed it all but surely
    /// (a miss ≈ 0.23^12); the threshold alone sets the false-alarm rate.
    static let generators: [(name: String, generate: @Sendable () -> Secret)] = [
        ("PasswordGenerator.generate", { PasswordGenerator.generate() }),
        ("Keyshelf.generatePassword", { Keyshelf.generatePassword() }),
    ]

    /// The per-position test over the generators users get, not only over
    /// `fill` with a draw the test chooses: a `generate()` that handed `fill`
    /// a byte-modulo draw (`byte % 53`) would fail here.
    @Test(arguments: generators.indices)
    func theGeneratorsUsersGetAreUniformPerPosition(index: Int) {
        let generator = Self.generators[index]
        let stats = Self.chiSquares(samples: Self.sampleCount / 2) { buffer in
            generator.generate().withUnsafeBytes { buffer.copyMemory(from: $0) }
        }
        for (position, chi) in stats.enumerated() {
            #expect(chi < Self.threshold, "\(generator.name) position \(position): chi-square \(chi)")
        }
    }

    /// A byte-modulo draw (values below 256 % 53 come 5/4 as often): the test must reject it.
    @Test func theTestRejectsAByteModuloDraw() {
        let stats = Self.chiSquares(samples: Self.sampleCount / 2) { PasswordGenerator.fill($0, uniform: { UInt32(Random.bytes(1)[0]) % $0 }) }
        #expect(stats.contains { $0 > Self.threshold }, "\(stats)")
    }

    /// Forcing a digit into the last position: the test must reject it.
    @Test func theTestRejectsAFixedPositionGenerator() {
        let stats = Self.chiSquares { buffer in
            repeat {
                PasswordGenerator.fill(buffer, uniform: Random.uniform)
                buffer[14] = PasswordGenerator.digits[Int(Random.uniform(7))]
            } while !Self.sets.allSatisfy { set in buffer.contains(where: set.contains) }
        }
        #expect(stats.contains { $0 > Self.threshold })
    }

    /// One of each set, nine from the whole alphabet, then shuffled: close to
    /// right but not uniform over valid strings. The test must reject it.
    @Test func theTestRejectsAOneOfEachShuffledGenerator() {
        let stats = Self.chiSquares { buffer in
            var chars = Self.sets.map { $0[Int(Random.uniform(UInt32($0.count)))] }
            for _ in 0..<9 { chars.append(PasswordGenerator.alphabet[Int(Random.uniform(53))]) }
            for i in stride(from: 11, to: 0, by: -1) { chars.swapAt(i, Int(Random.uniform(UInt32(i + 1)))) }
            var position = 0
            for i in 0..<15 where i % 4 != 3 {
                buffer[i] = chars[position]
                position += 1
            }
        }
        #expect(stats.contains { $0 > Self.threshold }, "\(stats)")
    }
}
