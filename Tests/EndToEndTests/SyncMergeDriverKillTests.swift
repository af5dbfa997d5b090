import Foundation
import KeyshelfTestSupport
import Testing

/// Issue 14: SIGKILL during the merge driver (`keyshelf __merge-driver`, run by
/// a plain `git pull`) leaves `shared.vault` opening and the repository one
/// that `keyshelf sync` completes (docs/sync.md, "A plain `git pull`").
@Suite(.serialized) struct SyncMergeDriverKillTests {
    /// Delays, in ms, between the driver's start and its SIGKILL: from before
    /// it has opened anything to after it has usually finished (a debug
    /// build's driver takes about 50–70 ms, so the middle is dense).
    static let killDelays = [0, 5, 10, 20, 30, 40, 50, 60, 80, 160]

    @Test func sigkillDuringTheMergeDriverLeavesVaultAndRepositoryUsable() throws {
        let world = try SyncTests.World()
        let a = try world.machine()
        try a.add("example.com", "seed", password: "seed")
        try #require(try a.sync(["sync", "setup", world.remoteURL]).status == 0)
        let b = try world.machine(initialize: false)
        try #require(try b.sync(["sync", "clone", world.remoteURL]).status == 0)
        let git = SyncTests().git
        // Runs the driver's real command line (its arguments after the delay) in
        // the background and SIGKILLs it after the delay; exits with its status.
        let wrapper = b.root.appendingPathComponent("kill-driver.sh")
        try "#!/bin/sh\ndelay=$1\nshift\n\"$@\" &\npid=$!\nsleep \"$delay\"\nkill -9 \"$pid\" 2>/dev/null\nwait \"$pid\"\n"
            .write(to: wrapper, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: wrapper.path)
        let driver = try git(["config", "merge.keyshelf.driver"], b.directory, b).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        try #require(driver.contains("__merge-driver %O %A %B"), "\(driver)")
        let mergeHead = b.directory.appendingPathComponent(".git/MERGE_HEAD").path
        var killed = 0

        for (round, delay) in Self.killDelays.enumerated() {
            try a.add("example.com", "from-a-\(round)", password: "a-\(round)")
            #expect(try a.sync(["sync"]).status == 0)
            try b.add("shop.example", "from-b-\(round)", password: "b-\(round)")
            try #require(try git(["commit", "--quiet", "-am", "local \(round)"], b.directory, b).status == 0)
            // `keyshelf sync` registers the real driver again: point git at the wrapper every round.
            let killing = "'\(wrapper.path)' \(String(format: "%.3f", Double(delay) / 1000)) \(driver)"
            try #require(try git(["config", "merge.keyshelf.driver", killing], b.directory, b).status == 0)
            let pull = try git(["pull", "--no-rebase", "--quiet", "origin", "main"], b.directory, b)

            // Whatever the kill hit, the work tree's file is a whole vault holding B's records.
            let listed = try b.sync(["list", "--no-agent"])
            #expect(listed.status == 0 && listed.stdout.contains("from-b-\(round)"), "round \(round), \(delay) ms: \(listed)")
            if pull.status != 0 {
                killed += 1
                #expect(FileManager.default.fileExists(atPath: mergeHead), "round \(round): \(pull)")
                let refused = try b.sync(["sync"])
                #expect(refused.status == 1 && refused.stderr.contains("git merge --abort"), "round \(round): \(refused)")
                #expect(try git(["merge", "--abort"], b.directory, b).status == 0)
            }
            let synced = try b.sync(["sync"])
            #expect(synced.status == 0, "round \(round), \(delay) ms: \(synced)")
            #expect(!FileManager.default.fileExists(atPath: mergeHead), "round \(round)")
            #expect(try git(["status", "--porcelain"], b.directory, b).stdout.isEmpty, "round \(round)")
            let merged = try b.sync(["list", "--no-agent"]).stdout
            #expect(merged.contains("from-a-\(round)") && merged.contains("from-b-\(round)"), "round \(round): \(merged)")
        }
        #expect(killed > 0, "at least the early kills strike before the driver has written")

        #expect(try a.sync(["sync"]).status == 0)
        let listA = try a.sync(["list", "--json"]).stdout, listB = try b.sync(["list", "--json"]).stdout
        #expect(listA == listB)
        for round in Self.killDelays.indices {
            for m in [a, b] {
                #expect(try m.sync(["get", "example.com", "from-a-\(round)", "--yes"]).stdout == "a-\(round)\n")
                #expect(try m.sync(["get", "shop.example", "from-b-\(round)", "--yes"]).stdout == "b-\(round)\n")
            }
        }
    }
}
