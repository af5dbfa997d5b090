import Foundation
import KeyshelfCrypto
import KeyshelfVault
import Testing
@testable import KeyshelfCredentials

/// Three machines with clocks an hour apart doing random adds, password
/// changes, label edits, deletes and syncs through one remote copy (as git
/// serialises pushes), for hundreds of rounds with fixed seeds: every
/// machine must end with the same records, and every password ever saved is
/// still there (current or in a history) unless the documented rules drop it.
@Suite struct SyncSimulationTests {
    /// A small deterministic generator (SplitMix64), so each seed replays exactly.
    struct Seeded: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    struct Machine {
        var items: [Item] = []
        var clockOffset: TimeInterval
    }

    /// A password set, or a delete, with the stamp the save gave it.
    struct Event {
        var key: String
        var password: String?
        var stamp: ChangeStamp
    }

    static let hosts = ["example.com", "shop.example", "mail.example.net"]
    static let accounts = ["alice", "bob", "carol", "dave"]

    func key(_ item: Item) -> String { item.server + " " + item.account }

    @Test(arguments: [1, 2, 3] as [UInt64])
    func threeMachinesConverge(seed: UInt64) throws {
        var random = Seeded(state: seed)
        var machines = [Machine(clockOffset: -3600), Machine(clockOffset: 0), Machine(clockOffset: 3600)]
        var remote: [Item] = []
        var events: [Event] = []
        var now = Date(timeIntervalSince1970: 1_800_000_000)
        var counter = 0

        func sync(_ m: Int) {
            var merged = ItemMerge.merge(ours: machines[m].items, theirs: remote)
            let before = merged
            ChangeStamper.stamp(&merged, now: now.addingTimeInterval(machines[m].clockOffset))
            #expect(merged == before, "a merge result needs no new stamp")
            machines[m].items = merged
            remote = merged
        }

        for _ in 0..<300 {
            now = now.addingTimeInterval(Double(Int.random(in: 1...10, using: &random)))
            let m = Int.random(in: 0..<3, using: &random)
            let wall = now.addingTimeInterval(machines[m].clockOffset)
            var shared = SharedWebCredentials(items: machines[m].items)
            let host = server(Self.hosts.randomElement(using: &random)!)
            let account = Self.accounts.randomElement(using: &random)!
            switch Int.random(in: 0..<10, using: &random) {
            case 0...3:
                counter += 1
                let password = "pw-\(seed)-\(counter)"
                try shared.add(server: host, account: account, password: secret(password), consent: ApproveAll(), now: wall)
                ChangeStamper.stamp(&shared.items, now: wall)
                let item = shared.items.first { !$0.isDeleted && $0.server == host.host && $0.account == account }!
                events.append(Event(key: key(item), password: password, stamp: item.effectiveStamp))
            case 4:
                if let i = shared.items.firstIndex(where: { !$0.isDeleted && $0.server == host.host }) {
                    shared.items[i].label = "label \(counter)"
                    shared.items[i].modificationDate = wall
                    ChangeStamper.stamp(&shared.items, now: wall)
                }
            case 5:
                if let i = shared.items.firstIndex(where: { !$0.isDeleted && $0.server == host.host && $0.account == account }) {
                    let id = shared.items[i].id
                    try shared.add(server: host, account: account, password: nil, consent: ApproveAll(), now: wall)
                    ChangeStamper.stamp(&shared.items, now: wall)
                    let tombstone = shared.items.first { $0.id == id }!
                    events.append(Event(key: key(tombstone), password: nil, stamp: tombstone.effectiveStamp))
                }
            default:
                machines[m].items = shared.items
                sync(m)
                continue
            }
            machines[m].items = shared.items
        }
        for _ in 0..<2 { for m in machines.indices { sync(m) } }

        let canonical = machines.map { describe($0.items) }
        #expect(canonical[0] == canonical[1])
        #expect(canonical[1] == canonical[2])
        #expect(machines[0].items.count > 10, "the run did something")

        // No acknowledged password lost, except by a later delete of its account or the history cap.
        let final = machines[0].items
        var present = Set<String>()
        for item in final where !item.isDeleted {
            if let p = item.password?.unsafeString() { present.insert(p) }
            for entry in item.passwordHistory { present.insert(entry.password.unsafeString()!) }
        }
        for event in events {
            guard let password = event.password, !present.contains(password) else { continue }
            let deletedLater = events.contains { $0.password == nil && $0.key == event.key && event.stamp.precedes($0.stamp) }
            let capped = final.contains { !$0.isDeleted && key($0) == event.key && $0.passwordHistory.count == PasswordHistory.maximumCount }
            #expect(deletedLater || capped, "lost \(password) of \(event.key)")
        }
        // At most one live record per account.
        let liveKeys = final.filter { !$0.isDeleted }.map(key)
        #expect(Set(liveKeys).count == liveKeys.count)
    }

    func describe(_ items: [Item]) -> [String] {
        items.map { item in
            let stamp = item.effectiveStamp
            return [item.id.uuidString, item.isDeleted ? "deleted" : "live", item.password?.unsafeString() ?? "-",
                    item.passwordHistory.map { $0.password.unsafeString()! }.joined(separator: ","), item.label,
                    "\(stamp.wallMilliseconds).\(stamp.counter).\(stamp.node)"].joined(separator: "|")
        }.sorted()
    }
}
