import Foundation
import Testing
import KeyshelfCrypto
@testable import KeyshelfVault

/// A hostile tester's attempts on format v3 (docs/vault-format.md,
/// "Segments (v3)", "Appendices"): files built with the format's own pieces
/// in shapes keyshelf never writes, and odd sequences of saves. A refusal
/// must be `.damaged` or `.truncated` and change nothing on disk; a file
/// that opens must read the same in the session that wrote it and in a
/// fresh one.
@Suite struct HostileVersion3Tests {
    static func opened(_ vault: TemporaryVault, _ store: Store = .shared) throws -> VaultSession.FileState {
        let path = vault.file(store)
        let file = try #require(try FileSystem.read(path))
        return try VaultSession.openFile(file, store: store, password: testPassword, reusing: nil, path: path)
    }

    /// What a comparison of two reads looks at (not the change stamps' clocks).
    static func summary(_ items: [Item]) -> [String] {
        items.map { "\($0.id) \($0.itemClass) \($0.account) \($0.label) \($0.comment) \($0.isDeleted)" }
    }

    /// A vault whose shared store is `items` (a whole-file save).
    static func vault(_ items: [Item]) throws -> (TemporaryVault, VaultSession) {
        let vault = TemporaryVault()
        let session = try vault.directory.create(password: testPassword, limits: .minimum)
        try session.modify { $0.shared = items }
        return (vault, session)
    }

    /// A v3 shared.vault for `state`'s keys, segment by segment: `base`
    /// record lists, then the manifest (`manifest` overrides its plaintext),
    /// then `appendices`, then `trailing` unannounced bytes.
    static func craft(_ state: VaultSession.FileState, base: [[Item]], manifest: [UInt8]? = nil,
                      appendices: [[Item]] = [], trailing: [UInt8] = []) throws -> [UInt8] {
        var header = state.header
        #expect(header.version == 3)
        let chunk = Int(header.chunkByteCount)
        var payload: [UInt8] = []
        var tags: [UInt8] = []
        for list in base {
            var items = list
            let sealed = try SecretStream.seal(RecordCodec.encode(&items), key: state.vaultKey, chunkByteCount: chunk,
                                               associatedData: VaultFile.baseSegmentAssociatedData(header))
            payload.appendLittleEndian(UInt32(sealed.count))
            payload += sealed
            tags += sealed.suffix(16)
        }
        var list: [UInt8] = []
        list.appendLittleEndian(UInt32(base.count))
        list += tags
        let sealedManifest = try SecretStream.seal(SecureBytes(copying: manifest ?? list), key: state.vaultKey, chunkByteCount: chunk,
                                                   associatedData: VaultFile.manifestAssociatedData(header))
        payload.appendLittleEndian(UInt32(sealedManifest.count) | VaultFile.manifestFlag)
        payload += sealedManifest
        let tag = Array(sealedManifest.suffix(16))
        for (index, appendix) in appendices.enumerated() {
            var items = appendix
            payload += try VaultFile.sealAppendix(RecordCodec.encode(&items), header: header, vaultKey: state.vaultKey, payloadTag: tag, index: index)
        }
        header.payloadByteCount = UInt64(payload.count)
        return header.serialized() + payload + trailing
    }

    /// Expects the vault not to open, with `.damaged` or `.truncated`, and
    /// the directory's files unchanged by the attempt.
    static func expectRefused(_ vault: TemporaryVault, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let before = try FileManager.default.contentsOfDirectory(atPath: vault.path).sorted()
        let bytes = try readBytes(vault.file(.shared))
        let error = OpenFailureTests.failedOpen(vault)
        #expect(error?.code == .damaged || error?.code == .truncated, "\(what): \(error.map { "\($0.code): \($0.reason)" } ?? "opened")",
                sourceLocation: sourceLocation)
        #expect(try readBytes(vault.file(.shared)) == bytes, "\(what): the refusal changed the file", sourceLocation: sourceLocation)
        #expect(try FileManager.default.contentsOfDirectory(atPath: vault.path).sorted() == before, sourceLocation: sourceLocation)
    }

    /// The session's view of the shared store, and a fresh session's read of the file, agree.
    static func expectConsistent(_ vault: TemporaryVault, _ session: VaultSession, _ what: String,
                                 sourceLocation: SourceLocation = #_sourceLocation) throws {
        let mine = Self.summary(try session.contents().shared)
        let disk = Self.summary(try vault.directory.unlock(password: testPassword).contents().shared)
        #expect(mine == disk, "\(what): the writing session holds \(mine.count) items, the file \(disk.count)", sourceLocation: sourceLocation)
    }

    // MARK: Crafted files

    @Test func aManifestWithAHugeOrWrongCountIsDamage() throws {
        let (vault, session) = try Self.vault([sampleItem(1)])
        defer { vault.cleanUp() }
        let state = try Self.opened(vault)
        for count in [UInt32.max, 0, 2, 1 << 28] {
            var manifest: [UInt8] = []
            manifest.appendLittleEndian(count)
            manifest += [UInt8](repeating: 7, count: 16)
            try writeBytes(try Self.craft(state, base: [[sampleItem(1)]], manifest: manifest), to: vault.file(.shared))
            try Self.expectRefused(vault, "manifest count \(count)")
        }
        // The right count with a tag too many, or one byte short.
        var tags: [UInt8] = []
        tags.appendLittleEndian(UInt32(1))
        for manifest in [tags + [UInt8](repeating: 7, count: 32), tags + [UInt8](repeating: 7, count: 15)] {
            try writeBytes(try Self.craft(state, base: [[sampleItem(1)]], manifest: manifest), to: vault.file(.shared))
            try Self.expectRefused(vault, "a manifest of \(manifest.count) bytes")
        }
        _ = session
    }

    @Test func aZeroRecordBaseSegmentInTheMiddleOpensAndSavesConsistently() throws {
        let (vault, session) = try Self.vault([sampleItem(1)])
        defer { vault.cleanUp() }
        let state = try Self.opened(vault)
        try writeBytes(try Self.craft(state, base: [[sampleItem(1)], [], [sampleItem(2)]], appendices: [[sampleItem(3)]]), to: vault.file(.shared))
        #expect(Self.summary(try vault.directory.unlock(password: testPassword).contents().shared) == Self.summary([sampleItem(1), sampleItem(2), sampleItem(3)]))
        try session.modify { $0.shared[1].comment = "edited" }
        try Self.expectConsistent(vault, session, "an edit after the empty segment")
        try session.modify { $0.shared.remove(at: 0) }
        try Self.expectConsistent(vault, session, "a compaction")
        #expect(Self.summary(try session.contents().shared).count == 2)
    }

    @Test func duplicateIdsInsideOneAppendixFoldToTheLastAndStayConsistent() throws {
        let (vault, session) = try Self.vault([sampleItem(1), sampleItem(2)])
        defer { vault.cleanUp() }
        let state = try Self.opened(vault)
        var first = sampleItem(1), second = sampleItem(1)
        first.comment = "first copy"
        second.comment = "second copy"
        try writeBytes(try Self.craft(state, base: [[sampleItem(1), sampleItem(2)]], appendices: [[first, second]]), to: vault.file(.shared))
        let read = try vault.directory.unlock(password: testPassword).contents().shared
        #expect(Self.summary(read) == Self.summary([second, sampleItem(2)]))
        try session.modify { $0.shared[1].label = "edited" }
        try Self.expectConsistent(vault, session, "an edit after a doubled appendix")
    }

    @Test func anAppendixReplacingARecordWithAnotherItemClassStaysConsistent() throws {
        let (vault, session) = try Self.vault([sampleItem(1), sampleItem(2)])
        defer { vault.cleanUp() }
        let state = try Self.opened(vault)
        var generic = sampleItem(1)
        generic.itemClass = .genericPassword
        generic.service = "svc"
        try writeBytes(try Self.craft(state, base: [[sampleItem(1), sampleItem(2)]], appendices: [[generic]]), to: vault.file(.shared))
        let read = try vault.directory.unlock(password: testPassword).contents().shared
        #expect(read.map(\.itemClass) == [.genericPassword, .internetPassword])
        try session.modify { $0.shared[0].label = "edited" }
        try Self.expectConsistent(vault, session, "an edit of the replaced record")
    }

    /// Records that share an id (a store keyshelf itself does not make,
    /// but a v2 file, another program or a bug can hold): an edit of the
    /// second one must not be written as an appendix, which every reader
    /// would fold onto the first.
    @Test func anEditOfARecordWhoseIdAnotherRecordHasKeepsBoth() throws {
        let (vault, session) = try Self.vault([sampleItem(1)])
        defer { vault.cleanUp() }
        let state = try Self.opened(vault)
        var twin = sampleItem(1)
        twin.account = "twin@example.com"
        try writeBytes(try Self.craft(state, base: [[sampleItem(1), sampleItem(2), twin]]), to: vault.file(.shared))
        #expect(try vault.directory.unlock(password: testPassword).contents().shared.count == 3)
        try session.modify { $0.shared[2].comment = "edited twin" }
        try Self.expectConsistent(vault, session, "an edit of the second of two records with one id")
        #expect(try vault.directory.unlock(password: testPassword).contents().shared.count == 3)
    }

    /// Base records that share an id (as above) and an appendix record with
    /// that id (a writer that appended anyway): the appendix replaces one of
    /// them; the base's other record stays, as it does when the appendix
    /// holds some other record.
    @Test func anAppendixRecordWithADoubledBaseIdDropsNoBaseRecord() throws {
        let (vault, _) = try Self.vault([sampleItem(1)])
        defer { vault.cleanUp() }
        let state = try Self.opened(vault)
        var twin = sampleItem(1), edited = sampleItem(1)
        twin.account = "twin@example.com"
        edited.comment = "edited"
        try writeBytes(try Self.craft(state, base: [[sampleItem(1), sampleItem(2), twin]], appendices: [[sampleItem(3)]]), to: vault.file(.shared))
        #expect(Self.summary(try vault.directory.unlock(password: testPassword).contents().shared)
                == Self.summary([sampleItem(1), sampleItem(2), twin, sampleItem(3)]))
        try writeBytes(try Self.craft(state, base: [[sampleItem(1), sampleItem(2), twin]], appendices: [[edited]]), to: vault.file(.shared))
        #expect(Self.summary(try vault.directory.unlock(password: testPassword).contents().shared)
                == Self.summary([edited, sampleItem(2), twin]))
    }

    /// An item added at the end with the id of an earlier one (a `modify`
    /// body may append any item): an appendix would fold it onto the earlier one.
    @Test func anAddedRecordWithAnExistingIdIsNotFoldedOntoIt() throws {
        let (vault, session) = try Self.vault([sampleItem(1), sampleItem(2)])
        defer { vault.cleanUp() }
        var again = sampleItem(1)
        again.account = "again@example.com"
        try session.modify { $0.shared.append(again) }
        try Self.expectConsistent(vault, session, "an added record with an existing id")
        again.account = "third@example.com"
        #expect(try session.add(to: .shared) { _ in again })
        try Self.expectConsistent(vault, session, "add(to:) of a record with an existing id")
        #expect(try vault.directory.unlock(password: testPassword).contents().shared.count == 4)
    }

    @Test func aVersion3HeaderOnAVersion2PayloadIsDamage() throws {
        let (vault, _) = try Self.vault([sampleItem(1)])
        defer { vault.cleanUp() }
        let state = try Self.opened(vault)
        var header = state.header
        var items = [sampleItem(1)]
        let sealed = try SecretStream.seal(RecordCodec.encode(&items), key: state.vaultKey, chunkByteCount: Int(header.chunkByteCount),
                                           associatedData: header.payloadAssociatedData())
        var payload: [UInt8] = []
        payload.appendLittleEndian(UInt32(sealed.count))
        payload += sealed
        header.payloadByteCount = UInt64(payload.count)
        try writeBytes(header.serialized() + payload, to: vault.file(.shared))
        try Self.expectRefused(vault, "v3 header, v2 payload")
        // The same segment flagged as a manifest, with nothing before it.
        payload.replaceSubrange(0..<4, with: withUnsafeBytes(of: (UInt32(sealed.count) | VaultFile.manifestFlag).littleEndian, Array.init))
        try writeBytes(header.serialized() + payload, to: vault.file(.shared))
        try Self.expectRefused(vault, "a manifest first")
    }

    @Test func aVersion2SegmentLengthWithTheHighBitIsDamage() throws {
        let (vault, _) = try Self.vault([sampleItem(1)])
        defer { vault.cleanUp() }
        let state = try Self.opened(vault)
        var header = try VaultFile.makeHeader(version: 2, store: .shared, limits: state.header.limits, salt: state.header.salt,
                                              vaultKey: state.vaultKey, passwordKey: state.passwordKey)
        var items = [sampleItem(1)]
        let sealed = try SecretStream.seal(RecordCodec.encode(&items), key: state.vaultKey, chunkByteCount: Int(header.chunkByteCount),
                                           associatedData: header.payloadAssociatedData())
        header.payloadByteCount = UInt64(4 + sealed.count)
        var payload: [UInt8] = []
        payload.appendLittleEndian(UInt32(sealed.count) | VaultFile.manifestFlag)
        try writeBytes(header.serialized() + payload + sealed, to: vault.file(.shared))
        try Self.expectRefused(vault, "v2 length with the high bit")
    }

    @Test func aBaseSegmentOfTheOtherStoreIsDamage() throws {
        let (vault, session) = try Self.vault([sampleItem(1)])
        defer { vault.cleanUp() }
        try session.modify { $0.local = [sampleItem(9)] }
        let local = try readBytes(vault.file(.local))
        let shared = try readBytes(vault.file(.shared))
        let localBase = SegmentTests.segments(local)[0].range
        let sharedBase = SegmentTests.segments(shared)[0].range
        var spliced = Array(shared[..<(sharedBase.lowerBound - 4)])
        spliced.appendLittleEndian(UInt32(localBase.count))
        spliced += local[localBase]
        spliced += shared[sharedBase.upperBound...]
        withUnsafeBytes(of: UInt64(spliced.count - VaultHeader.byteCount).littleEndian) { spliced.replaceSubrange(120..<128, with: $0) }
        try writeBytes(withValidChecksum(spliced), to: vault.file(.shared))
        try Self.expectRefused(vault, "local's base segment in shared")
    }

    @Test func aSecondManifestAfterTheFirstIsDamage() throws {
        let (vault, _) = try Self.vault([sampleItem(1)])
        defer { vault.cleanUp() }
        let bytes = try readBytes(vault.file(.shared))
        let manifest = try #require(SegmentTests.segments(bytes).last)
        var doubled = bytes + bytes[(manifest.range.lowerBound - 4)..<manifest.range.upperBound]
        withUnsafeBytes(of: UInt64(doubled.count - VaultHeader.byteCount).littleEndian) { doubled.replaceSubrange(120..<128, with: $0) }
        try writeBytes(withValidChecksum(doubled), to: vault.file(.shared))
        try Self.expectRefused(vault, "two manifests")
    }

    /// Random splices of one file's own segments (base segments, manifest,
    /// appendices: dropped, repeated, reordered, a manifest flag flipped),
    /// with the header's length and checksum made right: each opens only
    /// when it is the file cut after an appendix (a rollback, which no
    /// static key can tell), to exactly that version's items; every other
    /// is `.damaged` or `.truncated`.
    @Test func randomSplicesOfAFilesOwnSegmentsOpenOnlyAsAPrefix() throws {
        let (vault, session) = try Self.vault(SegmentTests.items(0..<700))
        defer { vault.cleanUp() }
        try session.modify { $0.shared.removeLast() }
        var versions: [[String]] = [Self.summary(try session.contents().shared)]
        for n in 0..<3 {
            try session.modify { $0.shared[n * 300].label = "edit \(n)" }
            versions.append(Self.summary(try session.contents().shared))
        }
        let bytes = try readBytes(vault.file(.shared))
        let state = try Self.opened(vault)
        let pieces = SegmentTests.segments(bytes).map { Array(bytes[($0.range.lowerBound - 4)..<$0.range.upperBound]) }
        let manifest = try #require(SegmentTests.segments(bytes).firstIndex { $0.manifest })
        #expect(manifest >= 2 && pieces.count == manifest + 4, "\(pieces.count) segments, the manifest at \(manifest)")
        var generator = SystemRandomNumberGenerator()
        var opened = 0
        for round in 0..<400 {
            var order = (0..<Int.random(in: 1...(pieces.count + 2), using: &generator)).map { _ in Int.random(in: 0..<pieces.count, using: &generator) }
            if round % 4 == 0 { order = Array(0..<Int.random(in: 1...pieces.count, using: &generator)) }
            var payload = order.flatMap { pieces[$0] }
            var flipped = false
            if round % 5 == 0, !order.isEmpty {
                // The manifest flag flipped on one segment's length.
                let at = order.prefix(Int.random(in: 0..<order.count, using: &generator)).reduce(0) { $0 + pieces[$1].count }
                payload[at + 3] ^= 0x80
                flipped = true
            }
            var header = state.header
            header.payloadByteCount = UInt64(payload.count)
            let file = header.serialized() + payload
            let prefix = Array(0..<order.count)
            let expected = !flipped && order == prefix && order.count > manifest ? versions[order.count - manifest - 1] : nil
            do {
                let parsed = try file.withUnsafeBytes { try VaultHeader.parse($0, expected: .shared, path: "splice") }
                let items = try VaultFile.open(file, header: parsed, vaultKey: state.vaultKey, path: "splice").items
                #expect(expected != nil && Self.summary(items) == expected, "round \(round): \(order) flipped \(flipped) opened")
                opened += 1
            } catch let error as VaultError {
                #expect(expected == nil && (error.code == .damaged || error.code == .truncated),
                        "round \(round): \(order) flipped \(flipped): \(error.code): \(error.reason)")
            }
        }
        #expect(opened > 20)
    }

    /// A whole appendix left unannounced (killed before its header write),
    /// then an edit: the edit's appendix replaces the leftover.
    @Test func anUnannouncedAppendixIsLeftOutAndOverwritten() throws {
        let (vault, session) = try Self.vault([sampleItem(1), sampleItem(2)])
        defer { vault.cleanUp() }
        let state = try Self.opened(vault)
        var ghost = sampleItem(1)
        ghost.comment = "never acknowledged"
        var items = [ghost]
        let leftover = try VaultFile.sealAppendix(RecordCodec.encode(&items), header: state.header, vaultKey: state.vaultKey,
                                                  payloadTag: state.payloadTag, index: 0)
        try writeBytes(try readBytes(vault.file(.shared)) + leftover, to: vault.file(.shared))
        #expect(Self.summary(try vault.directory.unlock(password: testPassword).contents().shared) == Self.summary([sampleItem(1), sampleItem(2)]))
        try session.modify { $0.shared[1].comment = "edited" }
        try Self.expectConsistent(vault, session, "an edit after an unannounced appendix")
        #expect(try vault.directory.unlock(password: testPassword).contents().shared[0].comment == sampleItem(1).comment)
    }

    /// Bytes an append killed before its header write left after the payload
    /// (or a byte anyone appended): every later read of the file must not
    /// decrypt it again while nothing was committed, or the session's
    /// `revision` changes at every read and the caches built on it (the
    /// agent's, the TUI's) are rebuilt each time.
    @Test func aLeftoverAfterThePayloadDoesNotMakeEveryReadReadTheFileAgain() throws {
        let (vault, session) = try Self.vault([sampleItem(1), sampleItem(2)])
        defer { vault.cleanUp() }
        let state = try Self.opened(vault)
        var items = [sampleItem(3)]
        let leftover = try VaultFile.sealAppendix(RecordCodec.encode(&items), header: state.header, vaultKey: state.vaultKey,
                                                  payloadTag: state.payloadTag, index: 0)
        try writeBytes(try readBytes(vault.file(.shared)) + leftover, to: vault.file(.shared))
        let reader = try vault.directory.unlock(password: testPassword)
        _ = try reader.contents()
        let revision = reader.revision
        for _ in 0..<3 { _ = try reader.contents() }
        #expect(reader.revision == revision, "the file was read again \(reader.revision - revision) times")
        // A commit after the read (the header announcing the leftover) is still seen.
        try session.modify { $0.shared[0].comment = "edited" }
        #expect(try reader.contents().shared[0].comment == "edited")
        #expect(reader.revision != revision)
    }

    // MARK: Sequences

    @Test func editsPastTheAppendixBoundThenACompactionKeepEveryEdit() throws {
        let (vault, session) = try Self.vault((0..<5).map { sampleItem($0) })
        defer { vault.cleanUp() }
        let other = try vault.directory.unlock(password: testPassword)
        for n in 0..<(VaultSession.maximumAppendixCount + 10) {
            // Two sessions take turns, each re-reading the other's appendix.
            try (n % 2 == 0 ? session : other).modify { $0.shared[n % 5].label = "edit \(n)" }
        }
        #expect(try Self.opened(vault).appendixCount < 20)
        try Self.expectConsistent(vault, session, "after the bound")
        try Self.expectConsistent(vault, other, "after the bound (the other session)")
        let labels = try vault.directory.unlock(password: testPassword).contents().shared.map(\.label)
        let last = VaultSession.maximumAppendixCount + 9
        #expect(labels == (0..<5).map { k in "edit \((last - (last - k) % 5))" })
    }

    /// Two processes rewriting every record (appendices, and a compaction
    /// whenever the appendices reach their bound) while this one reads
    /// without the lock: every read sees each store whole at one
    /// generation, and the file opens after both are killed.
    @Test func twoEditingProcessesAndALockFreeReaderNeverSeeAMixedStore() throws {
        let vault = TemporaryVault()
        defer { vault.cleanUp() }
        let session = try vault.directory.create(password: testPassword, limits: .minimum)
        try session.modify { contents in
            for store in Store.allCases {
                contents[store] = (0..<4).map {
                    var item = sampleItem($0 + (store == .local ? 0 : 10))
                    item.label = "0"
                    return item
                }
            }
        }
        let outputs = [Pipe(), Pipe()]
        let writers = try outputs.map { try startStress(["churn", vault.path], output: $0) }
        defer {
            for writer in writers where writer.isRunning { kill(writer.processIdentifier, SIGKILL) }
        }
        func check(_ contents: VaultContents, _ what: String) {
            for store in Store.allCases {
                #expect(contents[store].count == 4 && Set(contents[store].map(\.label)).count == 1, "\(what): \(store) is mixed")
            }
        }
        let reader = try vault.directory.unlock(password: testPassword)
        let start = Date()
        var reads = 0, busy = 0
        while Date().timeIntervalSince(start) < 3 {
            do {
                check(try reader.contents(), "read \(reads)")
                reads += 1
            } catch let error as VaultError where error.code == .changedOnDisk {
                busy += 1
            }
        }
        for writer in writers {
            kill(writer.processIdentifier, SIGKILL)
            writer.waitUntilExit()
        }
        var generations = 0
        for output in outputs {
            while let g = ProcessTests.readGeneration(output.fileHandleForReading) { generations = max(generations, g) }
        }
        check(try vault.directory.unlock(password: testPassword).contents(), "after the kills")
        #expect(reads > 10 && generations > 100, "\(reads) reads (\(busy) busy), \(generations) generations")
    }

    /// SIGKILL while a writer edits one base segment's records right at the
    /// appendix bound, so that the kill often falls in the compaction that
    /// keeps the other segments: the file always opens, whole, with every
    /// acknowledged edit.
    @Test func killingAWriterAroundACompactionThatKeepsSegmentsLosesNothing() throws {
        let vault = TemporaryVault()
        defer { vault.cleanUp() }
        let session = try vault.directory.create(password: testPassword, limits: .minimum)
        // About 100 KB: two base segments, the second one kept by a compaction after edits in the first.
        try session.modify { $0.shared = (0..<1000).map { var item = sampleItem($0); item.label = "0"; return item } }
        try session.modify { $0.shared.removeLast() }
        let total = (0..<999).map { sampleItem($0).id }
        var acknowledged = 0
        var generator = SystemRandomNumberGenerator()
        var compactions = 0
        for round in 0..<6 {
            // Up to one appendix short of the bound: the child's second save compacts.
            var file = try Self.opened(vault)
            if file.appendixCount < VaultSession.maximumAppendixCount - 1 {
                // Appended through the session's own writer, one small record each (faster than a `modify` each).
                var edited = [file.items[500]]
                for k in file.appendixCount..<(VaultSession.maximumAppendixCount - 1) {
                    edited[0].comment = "fill \(k)"
                    #expect(try VaultSession.append(RecordCodec.encode(&edited), replacing: true, store: .shared, file: &file, directory: vault.path))
                }
                #expect(try Self.opened(vault).appendixCount == VaultSession.maximumAppendixCount - 1)
            }
            let (output, first) = try ProcessTests.killAtARandomMoment(["edit", vault.path], round: round, using: &generator)
            var last = first
            while let g = ProcessTests.readGeneration(output) { last = g }
            acknowledged = max(acknowledged, last ?? 0)
            try? output.close()
            let items = try vault.directory.unlock(password: testPassword).contents().shared
            #expect(items.map(\.id) == total, "round \(round): records missing or moved")
            let newest = items.prefix(10).compactMap { Int($0.label) }.max() ?? 0
            #expect(newest >= acknowledged, "round \(round): newest edit \(newest), \(acknowledged) acknowledged")
            // A compaction done, or one killed under way (its temporary file or pending backup left).
            let names = try FileManager.default.contentsOfDirectory(atPath: vault.path)
                + ((try? FileManager.default.contentsOfDirectory(atPath: vault.path + "/backups")) ?? [])
            if try Self.opened(vault).appendixCount < 5 || names.contains(where: { $0.hasSuffix(".tmp") || $0.hasSuffix("pending.bak") }) {
                compactions += 1
            }
        }
        #expect(compactions > 0, "no round reached a compaction")
    }

    @Test func editRemoveAndReAddTheSameIdStayConsistent() throws {
        let (vault, session) = try Self.vault((0..<4).map { sampleItem($0) })
        defer { vault.cleanUp() }
        try session.modify { $0.shared[2].comment = "edited" }
        try session.modify { $0.shared.remove(at: 2) }
        try Self.expectConsistent(vault, session, "removed")
        try session.modify { $0.shared.append(sampleItem(2)) }
        try Self.expectConsistent(vault, session, "re-added at the end")
        try session.modify { $0.shared[3].comment = "edited again" }
        try Self.expectConsistent(vault, session, "re-added and edited")
        try session.modify { $0.shared[3].isDeleted = true }
        try session.modify { $0.shared[3].isDeleted = false }
        try Self.expectConsistent(vault, session, "tombstoned and revived")
    }

    @Test func twoSessionsInterleavingEditsAndWholeFileSavesAgree() throws {
        let (vault, a) = try Self.vault((0..<50).map { sampleItem($0) })
        defer { vault.cleanUp() }
        let b = try vault.directory.unlock(password: testPassword)
        var generator = SystemRandomNumberGenerator()
        for step in 0..<60 {
            let session = Bool.random(using: &generator) ? a : b
            try session.modify { contents in
                let count = contents.shared.count
                switch Int.random(in: 0..<6, using: &generator) {
                case 0 where count > 1: contents.shared.remove(at: Int.random(in: 0..<count, using: &generator))
                case 1: contents.shared.append(sampleItem(1000 + step))
                case 2 where count > 1: contents.shared.swapAt(0, count - 1)
                default: contents.shared[Int.random(in: 0..<count, using: &generator)].label = "step \(step)"
                }
            }
            try Self.expectConsistent(vault, a, "step \(step), session a")
            try Self.expectConsistent(vault, b, "step \(step), session b")
        }
    }

    @Test func aPasswordChangeAfterAppendicesKeepsThemAndAppendsAgain() throws {
        let (vault, session) = try Self.vault((0..<3).map { sampleItem($0) })
        defer { vault.cleanUp() }
        try session.modify { $0.shared[0].label = "a" }
        _ = try session.add(to: .shared) { _ in sampleItem(7) }
        let newPassword = Secret(utf8: "new password")
        try session.changePassword(to: newPassword, limits: nil)
        try session.modify { $0.shared[1].label = "b" }
        try session.modify { $0.shared[3].label = "c" }
        let reopened = try vault.directory.unlock(password: newPassword)
        #expect(Self.summary(try reopened.contents().shared) == Self.summary(try session.contents().shared))
        #expect(try reopened.contents().shared.map(\.label) == ["a", "b", sampleItem(2).label, "c"])
    }

    @Test func anEmptyStoreTakesAppendicesAndCompacts() throws {
        let (vault, session) = try Self.vault([sampleItem(1)])
        defer { vault.cleanUp() }
        try session.modify { $0.shared = [] }
        try session.modify { $0.shared.append(sampleItem(2)) }
        try session.modify { $0.shared[0].comment = "x" }
        try Self.expectConsistent(vault, session, "appendices over an empty base")
        try session.modify { $0.shared = [] }
        try Self.expectConsistent(vault, session, "emptied again")
    }

    /// Bulk edits (every record changed, each appendix nearly a whole
    /// store) must not grow the file to 1 024 copies of the store before
    /// the next compaction: reading it would cost 1 024 stores' decryption.
    @Test func bulkEditsCompactBeforeTheAppendicesOutgrowTheStore() throws {
        let (vault, session) = try Self.vault(SegmentTests.items(0..<200))
        defer { vault.cleanUp() }
        try session.modify { $0.shared.removeLast() }
        let whole = try readBytes(vault.file(.shared)).count
        for n in 0..<40 {
            try session.modify { for i in $0.shared.indices { $0.shared[i].label = "bulk \(n)" } }
            if n == 0 { #expect(try Self.opened(vault).appendixCount == 1, "a bulk edit is an appendix") }
        }
        let size = try readBytes(vault.file(.shared)).count
        let bound = whole + max(whole, 256 * 1024)
            + VaultFile.largestAppendixByteCount(chunkByteCount: Int(VaultHeader.defaultChunkByteCount))
        #expect(size <= bound, "\(size) bytes for a store saved whole in \(whole)")
        try Self.expectConsistent(vault, session, "after bulk edits")
        #expect(try vault.directory.unlock(password: testPassword).contents().shared.allSatisfy { $0.label == "bulk 39" })
    }

    // MARK: Merge driver

    /// A merge whose result is OURS's records (THEIRS brought nothing new)
    /// must give OURS's bytes back: sealing them afresh makes git store
    /// another copy, and each machine a different blob for the same records.
    @Test func aMergeThatChangesNothingKeepsOursBytes() throws {
        let (vault, session) = try Self.vault((0..<3).map { sampleItem($0) })
        defer { vault.cleanUp() }
        try session.modify { $0.shared[1].comment = "edited" }
        let ours = try readBytes(vault.file(.shared))
        let items = try session.openSharedCopy(ours, name: "ours")
        #expect(try session.sealSharedCopy(items, over: ours) == ours)
    }

    /// Two machines' merges of the same copies (sides swapped, as a rebase
    /// does) read to the same records, and merging the result again over
    /// itself is stable.
    @Test func aMergedCopyOverOursReadsTheSameOnBothSides() throws {
        let (vault, session) = try Self.vault((0..<3).map { sampleItem($0) })
        defer { vault.cleanUp() }
        let base = try readBytes(vault.file(.shared))
        var mineItems = try session.openSharedCopy(base, name: "base")
        mineItems[0].label = "mine"
        let mine = try session.sealSharedCopy(mineItems, over: base)
        var theirItems = try session.openSharedCopy(base, name: "base")
        theirItems[2].label = "theirs"
        theirItems.append(sampleItem(5))
        let theirs = try session.sealSharedCopy(theirItems, over: base)
        var merged = mineItems
        merged[2] = theirItems[2]
        merged.append(theirItems[3])
        let onMine = try session.sealSharedCopy(merged, over: mine)
        let onTheirs = try session.sealSharedCopy(merged, over: theirs)
        #expect(Self.summary(try session.openSharedCopy(onMine, name: "mine+")) == Self.summary(merged))
        #expect(Self.summary(try session.openSharedCopy(onTheirs, name: "theirs+")) == Self.summary(merged))
        #expect(onMine.count - mine.count < 2048, "an appendix over mine")
        #expect(onTheirs.count - theirs.count < 2048, "an appendix over theirs")
        // The result written as this machine's file: a session reads it and appends to it.
        try writeBytes(onMine, to: vault.file(.shared))
        let reopened = try vault.directory.unlock(password: testPassword)
        #expect(Self.summary(try reopened.contents().shared) == Self.summary(merged))
        try reopened.modify { $0.shared[1].label = "after" }
        try Self.expectConsistent(vault, reopened, "an edit of the merged file")
    }
}
