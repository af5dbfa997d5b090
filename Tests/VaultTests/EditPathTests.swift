import Foundation
import Testing
import KeyshelfCrypto
@testable import KeyshelfVault

/// `VaultSession.modify` encodes only the records an edit changed, found by
/// the items' `recordOrigin`s (`FileState.edit`), and writes them as an
/// appendix; anything it cannot narrow down is saved whole. What a session
/// holds after each write must be what a fresh open of the files reads.
@Suite struct EditPathTests {
    private static func state(_ session: VaultSession, _ store: Store) throws -> VaultSession.FileState {
        try #require(session.state)[store]
    }

    /// What `modify` does with a store: the changed positions, then the edit.
    private static func edit(_ state: inout VaultSession.FileState, _ items: inout [Item]) -> VaultSession.FileState.Edit {
        state.edit(of: &items, at: state.changedPositions(in: items))
    }

    @Test func anEditOfOneRecordIsFoundWithoutEncodingTheOthers() throws {
        let vault = TemporaryVault()
        defer { vault.cleanUp() }
        let session = try vault.directory.create(password: testPassword, limits: .minimum)
        try session.modify { $0.shared = (1...40).map { sampleItem($0) } }
        var state = try Self.state(session, .shared)

        var items = state.items
        guard case .none = Self.edit(&state, &items) else { Issue.record("an untouched store is unchanged"); return }
        items[7].label = items[7].label
        guard case .none = Self.edit(&state, &items) else { Issue.record("a field set to its own value is unchanged"); return }
        items[7].label = "edited"
        items.append(sampleItem(41))
        guard case let .records(list, positions, replaces) = Self.edit(&state, &items) else { Issue.record("one edit, one addition"); return }
        #expect(positions == [7, 40])
        #expect(replaces)
        #expect(try RecordCodec.decode(list).map(\.label) == ["edited", "Sample 41"])

        items = state.items
        items.swapAt(3, 4)
        guard case .whole = Self.edit(&state, &items) else { Issue.record("a reordering is saved whole"); return }
        items = state.items
        items[5] = items[6]
        guard case .whole = Self.edit(&state, &items) else { Issue.record("an id at another position is saved whole"); return }
        items = state.items
        items.removeLast()
        guard case .whole = Self.edit(&state, &items) else { Issue.record("a removal is saved whole"); return }
        items = state.items
        items.append(items[0])
        guard case .whole = Self.edit(&state, &items) else { Issue.record("an added record with an id already held is saved whole"); return }
    }

    @Test func anEditAppendsOnlyTheChangedRecord() throws {
        let vault = TemporaryVault()
        defer { vault.cleanUp() }
        let session = try vault.directory.create(password: testPassword, limits: .minimum)
        try session.modify { $0.shared = (1...2000).map { sampleItem($0) } }
        let before = try readBytes(vault.file(.shared))
        try session.modify { $0.shared[1234].password = Secret(utf8: "new password") }
        let after = try readBytes(vault.file(.shared))

        #expect(Array(after[VaultHeader.byteCount..<before.count]) == Array(before[VaultHeader.byteCount...]), "the bytes already there stay")
        #expect(after.count - before.count < 1024, "one record's appendix, not the store")
        var expected = (1...2000).map { sampleItem($0) }
        expected[1234].password = Secret(utf8: "new password")
        let reopened = try vault.directory.unlock(password: testPassword).contents().shared
        #expect(reopened.map(\.password) == expected.map(\.password))
        #expect(reopened.map(\.id) == expected.map(\.id))
    }

    /// A store changed through `VaultContents`' subscript stays in its
    /// buffer: a copy would cost a whole store per edit (issue 15 item 4).
    @Test func aStoreChangedThroughTheSubscriptIsNotCopied() {
        var contents = VaultContents(shared: (1...10).map { sampleItem($0) })
        func address(_ items: [Item]) -> UInt? { items.withUnsafeBufferPointer { $0.baseAddress.map { UInt(bitPattern: $0) } } }
        let before = address(contents.shared)
        contents[.shared][3].label = "changed in place"
        #expect(address(contents.shared) == before)
        #expect(contents.shared[3].label == "changed in place")
    }

    /// Stamps issued without scanning the store still follow a stamp that a
    /// change brought in from a machine whose clock is ahead (the hybrid
    /// clock moves forward, docs/sync.md).
    @Test func stampsOfLaterEditsFollowAStampMergedIn() throws {
        let vault = TemporaryVault()
        defer { vault.cleanUp() }
        let session = try vault.directory.create(password: testPassword, limits: .minimum)
        try session.modify { $0.shared = (1...20).map { sampleItem($0) } }
        try session.modify { $0.shared[3].label = "edited" }
        let ahead = ChangeStamp(wallMilliseconds: ChangeStamp.milliseconds(Date()) + 3_600_000, counter: 5, node: 1,
                                issuedFor: Date(timeIntervalSince1970: 1_700_000_000))
        try session.modify { contents in
            var merged = contents.shared[5]
            merged.modificationDate = ahead.issuedFor
            merged.changeStamp = ahead
            contents.shared[5] = merged
        }
        try session.modify { contents in
            contents.shared[9].comment = "later"
            contents.shared[9].modificationDate = Date()
        }
        let read = try vault.directory.unlock(password: testPassword).contents().shared
        let stamp = try #require(read[9].changeStamp)
        #expect(ahead.precedes(stamp), "the edit after the merge is ordered after the merged stamp")
    }

    /// Random edits of every kind, each followed by a fresh open that must
    /// read what the session holds and what the edits made.
    @Test(arguments: [UInt64(1), 2, 3])
    func randomEditsReadBackAsMade(seed: UInt64) throws {
        let vault = TemporaryVault()
        defer { vault.cleanUp() }
        let session = try vault.directory.create(password: testPassword, limits: .minimum)
        var generator = OpenFuzzTests.Generator(state: seed)
        var expected = VaultContents(local: (1...12).map { sampleItem($0) }, shared: (13...30).map { sampleItem($0) })
        try session.modify { $0 = expected }
        var next = 31
        for round in 0..<120 {
            let store: Store = Bool.random(using: &generator) ? .local : .shared
            let other: Store = store == .local ? .shared : .local
            let kind = Int.random(in: 0..<10, using: &generator)
            let draw = UInt64.random(in: 0...UInt64.max, using: &generator)
            let added = next
            next += 1
            // The draws are made above, so the edit does the same to the model and to the session.
            let edit: (inout VaultContents) -> Void = { contents in
                let count = contents[store].count
                let i = count == 0 ? 0 : Int(draw % UInt64(count))
                switch (kind, count) {
                case (_, 0), (0, _): contents[store].append(sampleItem(added))
                case (1, _): contents[store][i].comment = "round \(round)"
                case (2, _): contents[store][i].password = Secret(utf8: "pw round \(round)")
                case (3, _): contents[store][i].label = contents[store][i].label
                case (4, _): contents[store].swapAt(i, count - 1)
                case (5, _): contents[store].remove(at: i)
                case (6, _): contents[other].append(contents[store].remove(at: i))
                case (7, _):
                    contents[store][i].passwordHistory.append(
                        PasswordHistoryEntry(password: Secret(utf8: "old \(round)"), replaced: Date(timeIntervalSince1970: 1_700_000_000)))
                case (8, _): contents[store][i] = sampleItem(added)
                default:
                    contents[store][i].account = "renamed\(round)@example.com"
                    contents[store].append(sampleItem(added + 100_000))
                }
            }
            edit(&expected)
            try session.modify(edit)
            let held = try session.contents()
            let read = try vault.directory.unlock(password: testPassword).contents()
            #expect(read.local == held.local && read.shared == held.shared, "round \(round): the files read back as the session holds them")
            #expect(held.local == expected.local && held.shared == expected.shared, "round \(round): the session holds what the edits made")
        }
    }
}
