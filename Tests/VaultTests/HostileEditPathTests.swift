import Foundation
import Testing
import KeyshelfCrypto
@testable import KeyshelfVault

/// A hostile tester's attempts on the narrowed write path (`modify` finding
/// changed records by `recordOrigin`, appendices of only those records, the
/// per-file stamp bound): what a session holds after each write must be what
/// a fresh open reads, and stamps must follow the hybrid clock's rule.
@Suite struct HostileEditPathTests {
    static func summary(_ items: [Item]) -> [String] {
        items.map { "\($0.id) \($0.account) \($0.label) \($0.comment) \($0.isDeleted) \($0.password.flatMap { $0.unsafeString() } ?? "-")" }
    }

    static func expectConsistent(_ vault: TemporaryVault, _ session: VaultSession, _ what: String,
                                 sourceLocation: SourceLocation = #_sourceLocation) throws {
        let mine = try session.contents()
        let disk = try vault.directory.unlock(password: testPassword).contents()
        for store in Store.allCases {
            #expect(summary(mine[store]) == summary(disk[store]), "\(what): \(store) differs between the session and a fresh open",
                    sourceLocation: sourceLocation)
        }
    }

    /// An item read before an edit (a snapshot, an undo buffer, a cached
    /// `contents()`) and written back after it is a change: the record at
    /// its position is no longer the one it was read from.
    @Test func aCopyReadBeforeAnAppendixEditIsSavedWhenWrittenBack() throws {
        let vault = TemporaryVault()
        defer { vault.cleanUp() }
        let session = try vault.directory.create(password: testPassword, limits: .minimum)
        try session.modify { $0.shared = (1...5).map { sampleItem($0) } }
        let snapshot = try session.contents()
        try session.modify { $0.shared[2].comment = "edited" }
        #expect(try vault.directory.unlock(password: testPassword).contents().shared[2].comment == "edited")
        // Undo: put back what was read before the edit.
        try session.modify { $0.shared = snapshot.shared }
        try Self.expectConsistent(vault, session, "an undo to a snapshot taken before an appendix edit")
        #expect(try vault.directory.unlock(password: testPassword).contents().shared[2].comment == snapshot.shared[2].comment)
    }

    /// The same, one item at a time, and for an item added by `add(to:)`.
    @Test func aSingleItemReadBeforeTwoEditsIsSavedWhenWrittenBack() throws {
        let vault = TemporaryVault()
        defer { vault.cleanUp() }
        let session = try vault.directory.create(password: testPassword, limits: .minimum)
        try session.modify { $0.local = (1...5).map { sampleItem($0) } }
        #expect(try session.add(to: .local) { _ in sampleItem(6) })
        let old = try session.contents().local[5]
        try session.modify { $0.local[5].label = "first" }
        try session.modify { $0.local[0].label = "other" }
        try session.modify { $0.local[5] = old }
        try Self.expectConsistent(vault, session, "an item written back after an edit of it")
    }

    /// A body that throws after changing items leaves the session as it
    /// was; a copy the body kept of a record stays that record.
    @Test func aBodyThatThrowsAfterAnAppendixEditThenAWriteBack() throws {
        struct Stop: Error {}
        let vault = TemporaryVault()
        defer { vault.cleanUp() }
        let session = try vault.directory.create(password: testPassword, limits: .minimum)
        try session.modify { $0.shared = (1...5).map { sampleItem($0) } }
        let before = try session.contents().shared[1]
        try session.modify { $0.shared[1].comment = "edit 1" }
        #expect(throws: Stop.self) {
            try session.modify { contents in
                contents.shared[1].comment = "thrown away"
                contents.shared.removeLast()
                throw Stop()
            }
        }
        try Self.expectConsistent(vault, session, "after a body that threw")
        try session.modify { $0.shared[1] = before }
        try Self.expectConsistent(vault, session, "a write-back after a body that threw")
    }

    /// Items carried between the two stores, or from one session to another
    /// on the same directory, are never taken for the target's records.
    @Test func itemsCarriedBetweenStoresAndSessionsAreWritten() throws {
        let vault = TemporaryVault()
        defer { vault.cleanUp() }
        let a = try vault.directory.create(password: testPassword, limits: .minimum)
        let b = try vault.directory.unlock(password: testPassword)
        try a.modify {
            $0.local = (1...4).map { sampleItem($0) }
            $0.shared = (1...4).map { var item = sampleItem($0); item.comment = "shared copy"; return item }
        }
        try a.modify { $0.shared[0] = $0.local[0] }
        try Self.expectConsistent(vault, a, "a local item put at the same position of shared")
        let fromB = try b.contents()
        try a.modify { $0.local[1].comment = "a's edit" }
        try a.modify { $0.local[1] = fromB.local[1] }
        try Self.expectConsistent(vault, a, "an item of another session written back")
        try Self.expectConsistent(vault, b, "the other session")
    }

    /// An edit made after an addition is a change made after it was seen:
    /// its stamp orders after the added record's even when the wall clock
    /// went back meanwhile (docs/sync.md, "Change stamps": the bound is
    /// "raised by every stamp it issues").
    @Test func anEditAfterAnAddIsStampedAfterTheAddedRecord() throws {
        let vault = TemporaryVault()
        defer { vault.cleanUp() }
        let session = try vault.directory.create(password: testPassword, limits: .minimum)
        let t0 = Date(timeIntervalSince1970: 1_800_000_000)
        session.clock = { t0 }
        try session.modify { $0.shared = (1...4).map { sampleItem($0) } }
        try session.modify { $0.shared[0].comment = "sets the bound" }
        session.clock = { t0.addingTimeInterval(3600) }
        #expect(try session.add(to: .shared) { _ in sampleItem(5) })
        session.clock = { t0.addingTimeInterval(1) }
        try session.modify { contents in
            contents.shared[1].comment = "edited after the add"
            contents.shared[1].modificationDate = t0.addingTimeInterval(1)
        }
        let items = try vault.directory.unlock(password: testPassword).contents().shared
        let added = try #require(items[4].changeStamp), edited = try #require(items[1].changeStamp)
        #expect(added.precedes(edited), "the edit (\(edited.wallMilliseconds)/\(edited.counter)) orders before the earlier add (\(added.wallMilliseconds)/\(added.counter))")
    }

    /// The same with an added item that brings its own (later) stamp, as a
    /// record copied from a synced copy does.
    @Test func anEditAfterAddingAStampedItemIsStampedAfterIt() throws {
        let vault = TemporaryVault()
        defer { vault.cleanUp() }
        let session = try vault.directory.create(password: testPassword, limits: .minimum)
        let t0 = Date(timeIntervalSince1970: 1_800_000_000)
        session.clock = { t0 }
        try session.modify { $0.shared = (1...4).map { sampleItem($0) } }
        try session.modify { $0.shared[0].comment = "sets the bound" }
        var incoming = sampleItem(5)
        incoming.changeStamp = ChangeStamp(wallMilliseconds: ChangeStamp.milliseconds(t0) + 3_600_000, counter: 0, node: 7,
                                           issuedFor: incoming.modificationDate)
        #expect(try session.add(to: .shared) { _ in incoming })
        session.clock = { t0.addingTimeInterval(1) }
        try session.modify { contents in
            contents.shared[1].comment = "edited after the add"
            contents.shared[1].modificationDate = t0.addingTimeInterval(1)
        }
        let items = try vault.directory.unlock(password: testPassword).contents().shared
        let added = try #require(items[4].changeStamp), edited = try #require(items[1].changeStamp)
        #expect(added.precedes(edited), "the edit orders before the stamp the add brought in")
    }

    /// A `…ThisDeviceOnly` item put into `shared.vault` by another process
    /// after this session saved it is still quarantined by the next edit.
    @Test func aForeignItemPlantedAfterASaveIsStillMovedOut() throws {
        let vault = TemporaryVault()
        defer { vault.cleanUp() }
        let session = try vault.directory.create(password: testPassword, limits: .minimum)
        try session.modify { $0.shared = (1...3).map { sampleItem($0) } }
        try session.modify { $0.shared[0].comment = "saved by the session" }
        let foreign = sampleItem(9, accessible: .afterFirstUnlockThisDeviceOnly)
        try ForeignItemTests.plantShared(try vault.directory.unlock(password: testPassword).contents().shared + [foreign], in: vault)
        try session.modify { $0.shared[1].comment = "edit" }
        let disk = try vault.directory.unlock(password: testPassword).contents()
        #expect(!disk.shared.contains { $0.accessible.isThisDeviceOnly })
        #expect(disk.local.map(\.id) == [foreign.id])
        try Self.expectConsistent(vault, session, "after the quarantine")
    }

    /// A body that edits the local store and puts a `…ThisDeviceOnly` item
    /// into shared is refused after the local store was stamped: neither
    /// store changes, in the session or on disk, and the next edit saves.
    @Test func aRefusedDeviceOnlyItemUndoesTheOtherStoresEdit() throws {
        let vault = TemporaryVault()
        defer { vault.cleanUp() }
        let session = try vault.directory.create(password: testPassword, limits: .minimum)
        try session.modify { $0.local = (1...3).map { sampleItem($0) }; $0.shared = (4...6).map { sampleItem($0) } }
        let before = try session.contents()
        #expect(throws: VaultError.self) {
            try session.modify { contents in
                contents.local[1].comment = "not saved"
                contents.shared[0].comment = "not saved either"
                contents.shared.append(sampleItem(7, accessible: .whenUnlockedThisDeviceOnly))
            }
        }
        let after = try session.contents()
        #expect(Self.summary(after.local) == Self.summary(before.local))
        #expect(Self.summary(after.shared) == Self.summary(before.shared))
        try Self.expectConsistent(vault, session, "after the refusal")
        try session.modify { $0.local[1].comment = "saved" }
        try Self.expectConsistent(vault, session, "an edit after the refusal")
    }

    /// Random sequences of edits, additions, removals, thrown bodies,
    /// write-backs of old copies, moves between stores, a second session's
    /// edits and password changes; after each, the session and a fresh open agree.
    @Test(arguments: [1, 2, 3])
    func randomSequencesStayConsistent(seed: UInt64) throws {
        struct Stop: Error {}
        var rng = OpenFuzzTests.Generator(state: seed)
        let vault = TemporaryVault()
        defer { vault.cleanUp() }
        let a = try vault.directory.create(password: testPassword, limits: .minimum)
        var b = try vault.directory.unlock(password: testPassword)
        var password = testPassword
        var next = 1
        func fresh() -> Item { next += 1; return sampleItem(next) }
        try a.modify { $0.local = (1...6).map { _ in fresh() }; $0.shared = (1...6).map { _ in fresh() } }
        var snapshots: [VaultContents] = [try a.contents()]
        for step in 0..<120 {
            let op = rng.next() % 10
            // Write-backs use session a's own recent reads (an undo buffer of one session).
            let session = op != 7 && rng.next() % 4 == 0 ? b : a
            let store: Store = rng.next() % 2 == 0 ? .local : .shared
            var what = "step \(step) op \(op) \(store)"
            switch op {
            case 0, 1, 2:
                try session.modify { c in
                    guard !c[store].isEmpty else { return }
                    let i = Int(rng.next() % UInt64(c[store].count))
                    c[store][i].comment = "edit \(step)"
                }
            case 3:
                try session.modify { c in c[store].append(fresh()) }
            case 4:
                _ = try session.add(to: store) { _ in fresh() }
            case 5:
                try session.modify { c in
                    guard !c[store].isEmpty else { return }
                    c[store].remove(at: Int(rng.next() % UInt64(c[store].count)))
                }
            case 6:
                _ = try? session.modify { c in
                    if !c[store].isEmpty { c[store][0].label = "thrown \(step)" }
                    c[store].append(fresh())
                    throw Stop()
                }
            case 7:
                // Write back an old copy of an item, if it is still at the same position.
                let old = snapshots[snapshots.count - 1 - Int(rng.next() % UInt64(min(3, snapshots.count)))]
                try session.modify { c in
                    for i in c[store].indices where i < old[store].count && old[store][i].id == c[store][i].id
                        && Self.summary([old[store][i]]) != Self.summary([c[store][i]]) {
                        c[store][i] = old[store][i]
                        what += " wrote back \(i)"
                        break
                    }
                }
            case 8:
                try session.modify { c in
                    let other: Store = store == .local ? .shared : .local
                    guard let i = c[other].indices.first(where: { i in !c[store].contains { $0.id == c[other][i].id } }) else { return }
                    let item = c[other][i]
                    if i < c[store].count { c[store][i] = item } else { c[store].append(item) }
                    what += " carried \(i)"
                }
            default:
                if step % 30 == 9 {
                    let newPassword = Secret(utf8: "password \(step)")
                    try a.changePassword(to: newPassword, limits: nil)
                    password = newPassword
                    b = try vault.directory.unlock(password: password)
                    what += " passwd"
                } else {
                    try session.modify { c in
                        guard c[store].count > 1 else { return }
                        c[store][0].comment = "first \(step)"
                        c[store][c[store].count - 1].comment = "last \(step)"
                    }
                }
            }
            snapshots.append(try a.contents())
            let disk = try vault.directory.unlock(password: password).contents()
            for s in [a, b] {
                let mine = try s.contents()
                for st in Store.allCases {
                    #expect(Self.summary(mine[st]) == Self.summary(disk[st]), "seed \(seed) \(what): \(s === a ? "a" : "b")'s \(st) differs from the file")
                }
            }
        }
    }
}
