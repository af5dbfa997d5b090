import Foundation
import Testing
import KeyshelfTestSupport

/// Issue 14 item 5 through git: a `passwd` on one machine reaches the others
/// at their next `keyshelf sync`, which asks for the new master password once
/// and re-seals their files under it (docs/sync.md).
@Suite(.serialized) struct SyncPasswdTests {
    static let newPassword = "a new master password, set on A"

    @Test func aPasswdOnOneMachineIsAdoptedByTheOtherAtItsNextSync() throws {
        let world = try SyncTests.World()
        let a = try world.machine()
        try a.add("example.com", "alice", password: "before-passwd")
        try #require(try a.sync(["sync", "setup", world.remoteURL]).status == 0)
        let b = try world.machine(initialize: false)
        try #require(try b.sync(["sync", "clone", world.remoteURL]).status == 0)
        try b.add("local.example", "erin", password: "erin-local", local: true)
        let c = try world.machine(initialize: false)
        try #require(try c.sync(["sync", "clone", world.remoteURL]).status == 0)

        let newFile = world.root.appendingPathComponent("new-master")
        try Data((Self.newPassword + "\n").utf8).write(to: newFile)
        let passwd = try a.run(["passwd"]) { $0["KEYSHELF_NEW_PASSWORD_FILE"] = newFile.path }
        try #require(passwd.status == 0, "\(passwd)")
        try Data((Self.newPassword + "\n").utf8).write(to: a.passwordFile)
        try a.add("shop.example", "carol", password: "carol-a")
        let synced = try a.sync(["sync"])
        #expect(synced.status == 0, "A syncs after its own passwd: \(synced)")

        // B, still on the old password, made a change of its own meanwhile.
        try b.add("mail.example", "dan", password: "dan-b")
        let refused = try b.sync(["sync"])
        #expect(refused.status == 2 && refused.stderr.contains("sealed under a new master password")
                && refused.stderr.contains("KEYSHELF_NEW_PASSWORD_FILE"), "without a new password there is nothing to adopt: \(refused)")
        let adopted = try b.run(["sync"]) {
            $0["GIT_CONFIG_NOSYSTEM"] = "1"
            $0["KEYSHELF_NEW_PASSWORD_FILE"] = newFile.path
        }
        #expect(adopted.status == 0 && adopted.stderr.contains("adopted the new master password"), "\(adopted)")
        #expect(try b.sync(["get", "example.com", "alice", "--yes"]).status == 5, "the old password no longer opens B's vault")
        try Data((Self.newPassword + "\n").utf8).write(to: b.passwordFile)
        #expect(try b.sync(["get", "shop.example", "carol", "--yes"]).stdout == "carol-a\n")
        #expect(try b.sync(["get", "mail.example", "dan", "--yes"]).stdout == "dan-b\n")
        #expect(try b.sync(["get", "local.example", "erin", "--yes"]).stdout == "erin-local\n")
        // A plain `git pull` on C: the merge driver adopts the new password the same way.
        try c.add("git.example", "frank", password: "frank-c")
        try #require(try SyncTests().git(["commit", "--quiet", "-am", "local"], in: c.directory, c).status == 0)
        var environment = c.environment
        environment["GIT_CONFIG_NOSYSTEM"] = "1"
        environment["KEYSHELF_NEW_PASSWORD_FILE"] = newFile.path
        let pull = try Program.run("/usr/bin/git", ["pull", "--no-rebase", "--quiet", "origin", "main"],
                                           environment: environment, currentDirectory: c.directory)
        #expect(pull.status == 0, "\(pull)")
        try Data((Self.newPassword + "\n").utf8).write(to: c.passwordFile)
        #expect(try c.sync(["get", "shop.example", "carol", "--yes"]).stdout == "carol-a\n")
        #expect(try c.sync(["get", "git.example", "frank", "--yes"]).stdout == "frank-c\n")
        #expect(try c.sync(["sync"]).status == 0)

        let back = try a.sync(["sync"])
        #expect(back.status == 0, "\(back)")
        #expect(try a.sync(["get", "mail.example", "dan", "--yes"]).stdout == "dan-b\n")
        #expect(try a.sync(["get", "git.example", "frank", "--yes"]).stdout == "frank-c\n")
    }
}
