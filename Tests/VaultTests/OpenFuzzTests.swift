import Foundation
import Testing
import KeyshelfCrypto
@testable import KeyshelfVault

/// Seeded mutations of real vault files, opened through `unlock`: nothing
/// traps, every failure is a `VaultError` of the open family naming the
/// file, and no failed open modifies the file. `KEYSHELF_FUZZ_ITERATIONS`
/// runs more mutations per test (default 150) and `KEYSHELF_FUZZ_SEED` another seed.
@Suite struct OpenFuzzTests {
    /// SplitMix64: a small, seeded generator, so a failure can be replayed.
    struct Generator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    static let environment = ProcessInfo.processInfo.environment
    static let iterations = environment["KEYSHELF_FUZZ_ITERATIONS"].flatMap(Int.init) ?? 150
    static let seed = environment["KEYSHELF_FUZZ_SEED"].flatMap(UInt64.init) ?? 0x6B73_6876

    static let openCodes: Set<String> = ["notAVault", "unsupportedVersion", "damaged", "truncated", "kdfLimitsTooHigh",
                                         "kdfLimitsNotApproved", "wrongPassword"]

    /// Values that sit on the edges of what the reader checks.
    static let edges: [UInt64] = [0, 1, 2, 16, 17, 40, 41, 42, 144, 8191, 8192, 65_535, 65_536, 16 << 20, (16 << 20) + 1,
                                  1 << 31, (2 << 30) + 1, UInt64(UInt32.max), UInt64(UInt32.max) + 1, UInt64(Int64.max), UInt64.max]

    static func value(_ generator: inout Generator) -> UInt64 {
        Bool.random(using: &generator) ? edges.randomElement(using: &generator)! : generator.next() >> UInt64.random(in: 0...63, using: &generator)
    }

    static func store<T: FixedWidthInteger>(_ value: T, at offset: Int, in bytes: inout [UInt8]) {
        guard offset + MemoryLayout<T>.size <= bytes.count else { return }
        withUnsafeBytes(of: value.littleEndian) { bytes.replaceSubrange(offset..<(offset + MemoryLayout<T>.size), with: $0) }
    }

    /// One mutation of `original`; `limitsMayChange` false keeps header bytes
    /// 16..<32 (for `local.vault`, whose limits are paid without asking, up to the ceiling).
    static func mutate(_ original: [UInt8], limitsMayChange: Bool, _ g: inout Generator) -> [UInt8] {
        var bytes = original
        var fixChecksum = Int.random(in: 0..<10, using: &g) > 0
        switch Int.random(in: 0..<8, using: &g) {
        case 0: // random header bytes
            for _ in 0..<Int.random(in: 1...4, using: &g) {
                var offset = Int.random(in: 0..<128, using: &g)
                if !limitsMayChange, (16..<32).contains(offset) { offset = Int.random(in: 32..<128, using: &g) }
                bytes[offset] = UInt8.random(in: 0...255, using: &g)
            }
        case 1: // truncation
            bytes = Array(bytes.prefix(Int.random(in: 0..<bytes.count, using: &g)))
            fixChecksum = false
        case 2: // a run of zero bytes in the payload, the announced length kept or fitted
            let start = Int.random(in: VaultHeader.byteCount..<bytes.count, using: &g)
            let end = min(bytes.count + 70_000, start + Int.random(in: 1...100_000, using: &g))
            if end > bytes.count { bytes += [UInt8](repeating: 0, count: end - bytes.count) }
            bytes.replaceSubrange(start..<end, with: [UInt8](repeating: 0, count: end - start))
            if Bool.random(using: &g) { store(UInt64(bytes.count - VaultHeader.byteCount), at: VaultHeader.payloadByteCountOffset, in: &bytes) }
        case 3: // the announced payload length
            store(value(&g), at: VaultHeader.payloadByteCountOffset, in: &bytes)
        case 4: // a segment length (the first, or 4 bytes anywhere in the payload)
            let offset = Bool.random(using: &g) ? VaultHeader.byteCount : Int.random(in: VaultHeader.byteCount..<bytes.count, using: &g)
            store(UInt32(truncatingIfNeeded: value(&g)), at: offset, in: &bytes)
        case 5: // the chunk size
            store(UInt32(truncatingIfNeeded: value(&g)), at: 11, in: &bytes)
        case 6: // the version, store and KDF bytes, and (shared.vault only) the limits
            store(UInt16(truncatingIfNeeded: value(&g)), at: 8, in: &bytes)
            if Bool.random(using: &g) { bytes[10] = UInt8.random(in: 0...3, using: &g) }
            if Bool.random(using: &g) { bytes[15] = UInt8.random(in: 0...2, using: &g) }
            if limitsMayChange {
                store(value(&g), at: 16, in: &bytes)
                store(value(&g), at: 24, in: &bytes)
            }
        default: // bytes after the end, the announced length grown to cover them or not
            bytes += (0..<Int.random(in: 1...70_000, using: &g)).map { _ in UInt8.random(in: 0...255, using: &g) }
            if Bool.random(using: &g) { store(UInt64(bytes.count - VaultHeader.byteCount), at: VaultHeader.payloadByteCountOffset, in: &bytes) }
        }
        return fixChecksum && bytes.count >= VaultHeader.byteCount ? withValidChecksum(bytes) : bytes
    }

    /// Opens `vault`; returns a description of anything but an open or an open-family error naming `path`.
    static func misbehaviour(_ vault: TemporaryVault, path: String) -> String? {
        do {
            _ = try vault.directory.unlock(password: testPassword)
            return nil
        } catch let error as VaultError {
            return openCodes.contains("\(error.code)") && error.file == path ? nil : "\(error.code) for \(error.file): \(error.reason)"
        } catch {
            return "\(error)"
        }
    }

    @Test(arguments: Store.allCases)
    func mutatedFilesNeverTrapAndAreLeftAlone(store: Store) throws {
        let vault = try OpenFailureTests.smallVault()
        defer { vault.cleanUp() }
        let session = try vault.directory.unlock(password: testPassword)
        try session.modify { $0[store].append(sampleItem(9)) }
        session.lock()
        let path = vault.file(store)
        let original = try readBytes(path)
        var generator = Generator(state: Self.seed ^ UInt64(store == .local ? 1 : 2))
        var problems: [String] = []
        for iteration in 0..<Self.iterations {
            let mutated = Self.mutate(original, limitsMayChange: store == .shared, &generator)
            try writeBytes(mutated, to: path)
            if let problem = Self.misbehaviour(vault, path: path) { problems.append("#\(iteration): \(problem)") }
            if try readBytes(path) != mutated { problems.append("#\(iteration): file modified") }
        }
        #expect(problems.isEmpty, "\(problems.prefix(5))")
    }

    /// Mutated record encodings, sealed with the right key, so that the
    /// record grammar itself meets the damage: opened or `.damaged`, never a trap.
    @Test func mutatedRecordsNeverTrap() throws {
        let vault = TemporaryVault()
        defer { vault.cleanUp() }
        try FileSystem.makeDirectory(vault.path)
        let salt = Random.bytes(PasswordHash.saltByteCount)
        let passwordKey = try VaultFile.deriveKey(password: testPassword, salt: salt, limits: .minimum, path: vault.path)
        let vaultKey = Random.secureBytes(VaultHeader.vaultKeyByteCount)
        let header = try VaultFile.makeHeader(store: .local, limits: .minimum, salt: salt, vaultKey: vaultKey, passwordKey: passwordKey)
        var file = VaultSession.FileState(header: header, passwordKey: passwordKey, vaultKey: vaultKey)
        var items = (1...4).map { sampleItem($0) }
        let valid = RecordCodec.encode(&items).withUnsafeBytes { Array($0) }
        var generator = Generator(state: Self.seed ^ 3)
        var problems: [String] = []
        for iteration in 0..<Self.iterations {
            var records = valid
            for _ in 0..<Int.random(in: 1...3, using: &generator) {
                switch Int.random(in: 0..<4, using: &generator) {
                case 0: records[Int.random(in: 0..<records.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
                case 1: records = Array(records.prefix(Int.random(in: 0...records.count, using: &generator)))
                case 2: records.insert(contentsOf: [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01], at: Int.random(in: 0...records.count, using: &generator))
                default: records += [UInt8](repeating: 0, count: Int.random(in: 1...64, using: &generator))
                }
                if records.isEmpty { records = [0] }
            }
            try VaultSession.save([], plaintext: SecureBytes(copying: records), store: .local, file: &file, directory: vault.path)
            if let problem = Self.misbehaviour(vault, path: vault.file(.local)) {
                problems.append("#\(iteration): \(problem)")
            }
        }
        #expect(problems.isEmpty, "\(problems.prefix(5))")
    }
}
