import Foundation
import KeyshelfCrypto
import KeyshelfVault
import Testing
@testable import KeyshelfCredentials

/// The merge rules of docs/sync.md, one test each, on in-memory records.
@Suite struct SyncMergeTests {
    let t0 = Date(timeIntervalSince1970: 1_800_000_000)

    /// A store as saved at wall time `now` on a machine: the facade's change, then the save's stamps.
    func saved(_ items: [Item], at now: Date) -> [Item] {
        var items = items
        ChangeStamper.stamp(&items, now: now)
        return items
    }

    func edit(_ items: [Item], _ account: String, password: String, at now: Date) -> [Item] {
        var shared = SharedWebCredentials(items: items)
        try! shared.add(server: server("example.com"), account: account, password: secret(password), consent: ApproveAll(), now: now)
        return saved(shared.items, at: now)
    }

    func delete(_ items: [Item], _ account: String, at now: Date) -> [Item] {
        var shared = SharedWebCredentials(items: items)
        try! shared.add(server: server("example.com"), account: account, password: nil, consent: ApproveAll(), now: now)
        return saved(shared.items, at: now)
    }

    func live(_ items: [Item], _ account: String) -> Item? {
        items.first { $0.account == account && !$0.isDeleted }
    }

    @Test func stampSurvivesAClockBehindTheLastChangeSeen() {
        // Machine A's clock is an hour ahead; B edits after receiving A's change.
        let a = edit([], "alice", password: "from-a", at: t0.addingTimeInterval(3600))
        let b = edit(a, "alice", password: "from-b", at: t0.addingTimeInterval(60))
        let merged = ItemMerge.merge(ours: a, theirs: b)
        #expect(live(merged, "alice")?.password?.text == "from-b")
        #expect(live(merged, "alice")!.passwordHistory.map(\.password.text) == ["from-a"])
        // Wall time alone would have kept A's older change.
        #expect(b[0].modificationDate < a[0].modificationDate)
    }

    @Test func laterChangeWinsRecordByRecordAndTheLoserPasswordGoesToHistory() {
        let base = edit([], "alice", password: "one", at: t0)
        let ours = edit(base, "alice", password: "ours", at: t0.addingTimeInterval(10))
        let theirs = edit(base, "alice", password: "theirs", at: t0.addingTimeInterval(20))
        for merged in [ItemMerge.merge(ours: ours, theirs: theirs), ItemMerge.merge(ours: theirs, theirs: ours)] {
            let record = live(merged, "alice")!
            #expect(record.password?.text == "theirs")
            #expect(Set(record.passwordHistory.map(\.password.text)) == ["one", "ours"])
        }
    }

    @Test func editAfterDeleteRevivesAndDeleteAfterEditRemoves() {
        let base = edit([], "alice", password: "one", at: t0)
        let deleted = delete(base, "alice", at: t0.addingTimeInterval(10))
        let editedLater = edit(base, "alice", password: "two", at: t0.addingTimeInterval(20))
        #expect(live(ItemMerge.merge(ours: deleted, theirs: editedLater), "alice")?.password?.text == "two")

        let editedEarlier = edit(base, "alice", password: "two", at: t0.addingTimeInterval(5))
        let merged = ItemMerge.merge(ours: editedEarlier, theirs: deleted)
        #expect(live(merged, "alice") == nil)
        #expect(merged.count == 1 && merged[0].isDeleted && merged[0].passwordHistory.isEmpty)
    }

    @Test func oneAccountAddedOnTwoMachinesKeepsTheLaterAndTheOtherPasswordInHistory() {
        let ours = edit([], "alice", password: "added-here", at: t0)
        let theirs = edit([], "alice", password: "added-there", at: t0.addingTimeInterval(30))
        #expect(ours[0].id != theirs[0].id)
        let merged = ItemMerge.merge(ours: ours, theirs: theirs)
        let record = live(merged, "alice")!
        #expect(record.password?.text == "added-there")
        #expect(record.passwordHistory.map(\.password.text) == ["added-here"])
        #expect(merged.filter(\.isDeleted).count == 1)
        // Stable: merging again, either way round, changes nothing.
        #expect(ItemMerge.merge(ours: merged, theirs: ours).sorted(by: byID) == merged.sorted(by: byID))
        #expect(ItemMerge.merge(ours: theirs, theirs: merged).sorted(by: byID) == merged.sorted(by: byID))
    }

    @Test func unstampedRecordsFallBackToTheirModificationDate() {
        var old = internetItem("example.com", "alice", "old", date: t0)
        old.changeStamp = nil
        #expect(old.effectiveStamp.wallMilliseconds == ChangeStamp.milliseconds(t0))
        let newer = edit([old], "alice", password: "new", at: t0.addingTimeInterval(1))
        #expect(live(ItemMerge.merge(ours: [old], theirs: newer), "alice")?.password?.text == "new")
    }

    @Test func deviceOnlyItemsNeverReachTheMergedFile() {
        let local = internetItem("example.com", "bob", "x", accessible: .whenUnlockedThisDeviceOnly)
        #expect(ItemMerge.merge(ours: [local], theirs: []).isEmpty)
    }

    @Test func hotpCounterMergesByMaximum() {
        var item = internetItem("example.com", "alice", "pw", date: t0)
        item.otpauth = "otpauth://hotp/x?secret=JBSWY3DPEHPK3PXP&counter=5"
        let base = saved([item], at: t0)
        var ahead = base
        ahead[0].otpauth = "otpauth://hotp/x?secret=JBSWY3DPEHPK3PXP&counter=9"
        ahead[0].modificationDate = t0.addingTimeInterval(2)
        var renamed = base
        renamed[0].label = "renamed"
        renamed[0].modificationDate = t0.addingTimeInterval(5)
        let merged = ItemMerge.merge(ours: saved(renamed, at: t0.addingTimeInterval(5)), theirs: saved(ahead, at: t0.addingTimeInterval(2)))
        #expect(merged[0].label == "renamed")
        #expect(merged[0].otpauth.contains("counter=9"))
    }

    @Test func historyIsCappedAndPrunedByAge() {
        var entries: [PasswordHistoryEntry] = []
        for i in 0..<15 { entries.append(PasswordHistoryEntry(password: secret("p\(i)"), replaced: t0.addingTimeInterval(Double(i)))) }
        entries.append(PasswordHistoryEntry(password: secret("ancient"), replaced: t0.addingTimeInterval(-400 * 86400)))
        let kept = PasswordHistory.normalized(entries, current: secret("p14"), changed: t0.addingTimeInterval(20))
        #expect(kept.count == PasswordHistory.maximumCount)
        #expect(kept.first?.password.text == "p13")
        #expect(!kept.contains { $0.password.text == "ancient" || $0.password.text == "p14" })
    }

    @Test func aLocalPasswordChangeKeepsTheOldPassword() {
        let one = edit([], "alice", password: "one", at: t0)
        let two = edit(one, "alice", password: "two", at: t0.addingTimeInterval(1))
        #expect(two[0].passwordHistory.map(\.password.text) == ["one"])
    }

    @Test func rollbackIsDetectedByStamps() {
        let v1 = edit([], "alice", password: "one", at: t0)
        let v2 = edit(v1, "alice", password: "two", at: t0.addingTimeInterval(10))
        #expect(RollbackCheck.regressions(newer: v2, older: v1).isEmpty)
        #expect(RollbackCheck.regressions(newer: v1, older: v2).count == 1)
        #expect(RollbackCheck.regressions(newer: [], older: v2).count == 1)
    }

    @Test func planNamesAddedChangedRemovedAndConflicts() {
        let base = edit(edit([], "alice", password: "a", at: t0), "bob", password: "b", at: t0)
        let ours = edit(delete(base, "bob", at: t0.addingTimeInterval(5)), "alice", password: "a-ours", at: t0.addingTimeInterval(6))
        let theirs = edit(edit(base, "carol", password: "c", at: t0.addingTimeInterval(7)), "alice", password: "a-theirs", at: t0.addingTimeInterval(8))
        let plan = SyncPlan(ours: ours, theirs: theirs, base: base)
        #expect(plan.incoming.added == 1 && plan.incoming.changed == 1 && plan.incoming.removed == 0)
        #expect(plan.outgoing.removed == 1)
        #expect(plan.conflicts.count == 1 && plan.conflicts[0].contains("alice"))
        #expect(plan.incoming.summary == "1 added, 1 changed")
    }

    /// The same account added on both machines (two ids, one primary key):
    /// the plan names it once, the loser is a tombstone in the merge.
    @Test func planNamesAnAccountAddedOnBothSidesOnce() {
        let ours = edit([], "dave", password: "d-ours", at: t0.addingTimeInterval(1))
        let theirs = edit([], "dave", password: "d-theirs", at: t0.addingTimeInterval(2))
        let plan = SyncPlan(ours: ours, theirs: theirs, base: [])
        let added = plan.conflicts.filter { $0.contains("added on both sides") }
        #expect(added.count == 1 && added[0].contains("dave"))
        #expect(plan.merged.filter(\.isDeleted).count == 1)
        #expect(SyncPlan(ours: ours, theirs: ours, base: []).conflicts.isEmpty)
    }

    func byID(_ a: Item, _ b: Item) -> Bool { a.id.uuidString < b.id.uuidString }
}
