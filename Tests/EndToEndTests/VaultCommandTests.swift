import Foundation
import Testing

/// `init`, `passwd`, and how the master password and vault errors reach the
/// user: exit codes 1, 2, 3, 5, 6 and 7 of DESIGN §8.
@Suite struct VaultCommandTests {
    @Test func initCreatesBothVaultFilesWithMode0600() throws {
        let vault = try TestVault()
        let files = try vault.snapshot()
        #expect(Set(files.keys) == ["local.vault", "shared.vault"])
        for name in files.keys {
            let attributes = try FileManager.default.attributesOfItem(atPath: vault.directory.appendingPathComponent(name).path)
            #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        }
    }

    @Test func initOverAnExistingVaultExitsSixAndKeepsIt() throws {
        let vault = try TestVault()
        try vault.add("example.com", "alice", password: "pw")
        let before = try vault.snapshot()
        let result = try vault.run(["init"])
        #expect(result.status == 6, "\(result)")
        #expect(result.stderr.contains("already exists"))
        #expect(try vault.snapshot() == before)
    }

    @Test func initRefusesAnEmptyMasterPassword() throws {
        let vault = try TestVault(initialize: false)
        try Data("\n".utf8).write(to: vault.passwordFile)
        let result = try vault.run(["init"])
        #expect(result.status == 2, "\(result)")
        #expect(result.stderr.contains("empty"))
        #expect(try vault.snapshot().isEmpty)
    }

    @Test func wrongMasterPasswordExitsFive() throws {
        let vault = try TestVault()
        let wrong = try vault.run(["list", "--password-fd", "3"], passwordOnFD3: "not the password")
        #expect(wrong.status == 5, "\(wrong)")
        #expect(wrong.stderr.contains("wrong master password"))
    }

    @Test func passwordFDIsReadInPlaceOfTheFile() throws {
        let vault = try TestVault()
        try vault.add("example.com", "alice", password: "pw")
        let result = try vault.run(["get", "example.com", "--password-fd", "3", "--yes"],
                                   passwordOnFD3: TestVault.masterPassword) { $0["KEYSHELF_PASSWORD_FILE"] = nil }
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout == "pw\n")
    }

    @Test func noMasterPasswordAndNoTerminalIsAUsageError() throws {
        let vault = try TestVault()
        let result = try vault.run(["list"]) { $0["KEYSHELF_PASSWORD_FILE"] = nil }
        #expect(result.status == 2, "\(result)")
        #expect(result.stderr.contains("no terminal"))
    }

    @Test func anUnreadablePasswordFileExitsOne() throws {
        let vault = try TestVault()
        let result = try vault.run(["list"]) { $0["KEYSHELF_PASSWORD_FILE"] = vault.root.appendingPathComponent("missing").path }
        #expect(result.status == 1, "\(result)")
        #expect(result.stderr.contains("missing"))
    }

    @Test func noVaultExitsThreeWithoutAskingForAPassword() throws {
        let vault = try TestVault(initialize: false)
        let result = try vault.run(["list"]) { $0["KEYSHELF_PASSWORD_FILE"] = nil }
        #expect(result.status == 3, "\(result)")
        #expect(result.stderr.contains("keyshelf init"))
    }

    @Test func aDamagedVaultExitsSevenAndIsLeftAlone() throws {
        let vault = try TestVault()
        try vault.add("example.com", "alice", password: "pw", local: true)
        let file = vault.directory.appendingPathComponent("local.vault")
        var bytes = try Data(contentsOf: file)
        bytes[bytes.count - 5] ^= 0x01
        try bytes.write(to: file)
        let result = try vault.run(["get", "example.com"])
        #expect(result.status == 7, "\(result)")
        #expect(result.stderr.contains("local.vault"))
        #expect(try Data(contentsOf: file) == bytes)
    }

    @Test func aTruncatedVaultExitsSeven() throws {
        let vault = try TestVault()
        let file = vault.directory.appendingPathComponent("shared.vault")
        let bytes = try Data(contentsOf: file)
        try bytes.prefix(bytes.count - 3).write(to: file)
        let result = try vault.run(["list"])
        #expect(result.status == 7, "\(result)")
    }

    @Test func aScriptedShortMasterPasswordIsWarnedAboutAndKept() throws {
        let vault = try TestVault(initialize: false)
        try Data("short\n".utf8).write(to: vault.passwordFile)
        let created = try vault.run(["init"])
        #expect(created.status == 0, "\(created)")
        #expect(created.stderr.contains("keyshelf: warning: the new master password has fewer than 12 characters"))
        let changed = try vault.run(["passwd", "--new-password-fd", "3"], passwordOnFD3: "tiny")
        #expect(changed.status == 0, "\(changed)")
        #expect(changed.stderr.contains("fewer than 12 characters"))
        #expect(try vault.run(["list", "--password-fd", "3"], passwordOnFD3: "tiny").status == 0)
        let long = try vault.run(["passwd", "--password-fd", "3", "--new-password-fd", "3"],
                                 passwordOnFD3: "tiny\n" + TestVault.masterPassword)
        #expect(long.status == 0, "\(long)")
        #expect(!long.stderr.contains("warning"))
    }

    @Test func passwdChangesTheMasterPasswordAndKeepsTheData() throws {
        let vault = try TestVault()
        try vault.add("example.com", "alice", password: "pw", local: true)
        let newFile = vault.root.appendingPathComponent("new-master")
        try Data("a brand new master\n".utf8).write(to: newFile)
        let changed = try vault.run(["passwd"]) { $0["KEYSHELF_NEW_PASSWORD_FILE"] = newFile.path }
        #expect(changed.status == 0, "\(changed)")
        #expect(try vault.run(["get", "example.com"]).status == 5)
        let after = try vault.run(["get", "example.com"]) { $0["KEYSHELF_PASSWORD_FILE"] = newFile.path }
        #expect(after.status == 0, "\(after)")
        #expect(after.stdout == "pw\n")
    }

    @Test func passwdReadsOldAndNewPasswordFromOneDescriptor() throws {
        let vault = try TestVault()
        let result = try vault.run(["passwd", "--password-fd", "3", "--new-password-fd", "3"],
                                   passwordOnFD3: TestVault.masterPassword + "\nsecond master") { $0["KEYSHELF_PASSWORD_FILE"] = nil }
        #expect(result.status == 0, "\(result)")
        let reopened = try vault.run(["list", "--password-fd", "3"], passwordOnFD3: "second master")
        #expect(reopened.status == 0, "\(reopened)")
    }

    @Test func passwdWithoutANewPasswordChangesNothing() throws {
        let vault = try TestVault()
        let before = try vault.snapshot()
        let result = try vault.run(["passwd"])
        #expect(result.status == 2, "\(result)")
        #expect(try vault.snapshot() == before)
    }

    @Test func aMissingSharedVaultIsNotedOnceAndRecreatedByTheNextSave() throws {
        let vault = try TestVault()
        try vault.add("example.com", "alice", password: "shared-pw")
        try vault.add("example.com", "bob", password: "local-pw", local: true)
        let present = try vault.run(["list"])
        #expect(present.stderr.isEmpty, "\(present)")
        let shared = vault.directory.appendingPathComponent("shared.vault")
        try FileManager.default.moveItem(at: shared, to: vault.root.appendingPathComponent("moved.vault"))

        let note = "keyshelf: note: \(shared.path) is missing; the shared credentials read as empty (restore it from backups/ or your sync copy)\n"
        let listed = try vault.run(["list"])
        #expect(listed.status == 0, "\(listed)")
        #expect(listed.lines == ["example.com\tbob\tlocal"])
        #expect(listed.stderr == note, "\(listed)")

        let added = try vault.run(["add", "example.org", "carol", "--password-stdin"], stdin: "pw\n")
        #expect(added.status == 0, "\(added)")
        #expect(added.stderr.hasPrefix(note), "\(added)")
        #expect(FileManager.default.fileExists(atPath: shared.path))
        let after = try vault.run(["list"])
        #expect(after.stderr.isEmpty, "\(after)")
        #expect(after.lines.contains("example.org\tcarol\tshared"))
    }

    @Test func vaultOptionsMayComeBeforeTheCommand() throws {
        let vault = try TestVault(initialize: false)
        let other = vault.root.appendingPathComponent("elsewhere")
        let created = try vault.run(["--vault", other.path, "init"])
        #expect(created.status == 0, "\(created)")
        let listed = try vault.run(["--vault=\(other.path)", "list", "--json"])
        #expect(listed.status == 0, "\(listed)")
        #expect(listed.stdout == "[]\n")
        #expect(FileManager.default.fileExists(atPath: other.appendingPathComponent("local.vault").path))
        #expect(try vault.snapshot().isEmpty)
    }
}
