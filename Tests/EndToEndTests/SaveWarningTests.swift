import Foundation
import KeyshelfTestSupport
import Testing

/// A save that committed reports success with a warning (issue 11, item 22),
/// here for a backup made immutable (`chattr +i`, which needs root and a file
/// system with the flag; skipped otherwise).
@Suite struct SaveWarningTests {
    static func chattr(_ flag: String, _ path: String) -> Bool {
        (try? Program.run("/usr/bin/chattr", [flag, path], environment: [:]).status) == 0
    }

    @Test func anImmutableBackupIsAWarningNotAFailureAndPasswdChangesNothingWhileItLasts() throws {
        let vault = try TestVault()
        for n in 0..<3 { try vault.add("site\(n).example", "user\(n)", password: "password-\(n)") }
        // A whole-file save (a tombstone), so backups/shared.1.bak exists.
        #expect(try vault.run(["rm", "site0.example", "user0", "--yes"]).status == 0)
        let backup = vault.directory.appendingPathComponent("backups/shared.1.bak").path
        guard getuid() == 0, Self.chattr("+i", backup) else {
            print("skipped: chattr +i needs root and a file system that supports it")
            return
        }
        defer { _ = Self.chattr("-i", backup) }

        for account in ["user1", "user2"] {
            let result = try vault.run(["rm", "site\(account.last!).example", account, "--yes"])
            #expect(result.status == 0, "\(result)")
            #expect(result.stderr.contains("keyshelf: warning: "), "\(result)")
            #expect(result.stderr.contains("the change is saved, but the backups could not be rotated"), "\(result)")
        }
        #expect(try vault.run(["list", "--shared", "--json"]).stdout == "[]\n")

        // passwd needs its pending backups for an undo: it refuses, changing nothing.
        let before = try vault.snapshot()
        let newFile = vault.root.appendingPathComponent("new-master")
        try Data("a brand new master\n".utf8).write(to: newFile)
        let passwd = try vault.run(["passwd"]) { $0["KEYSHELF_NEW_PASSWORD_FILE"] = newFile.path }
        #expect(passwd.status == 1, "\(passwd)")
        #expect(passwd.stderr.contains("cannot change the master password while the backups cannot rotate"), "\(passwd)")
        #expect(passwd.stderr.contains("nothing was changed"), "\(passwd)")
        #expect(try vault.snapshot() == before)
        #expect(try vault.run(["list"]).status == 0)
    }
}
