import Foundation
import Testing

/// Prompts and consent dialogs on the controlling terminal (DESIGN §5, §8),
/// through a pseudo-terminal.
@Suite struct TerminalTests {
    @Test func initAsksTheMasterPasswordTwiceWithoutEcho() throws {
        let vault = try TestVault(initialize: false)
        var environment = vault.environment
        environment["KEYSHELF_PASSWORD_FILE"] = nil
        let result = try PseudoTerminal.run(["init"], steps: [
            .init(expect: "New master password: ", send: "typed master\n"),
            .init(expect: "Repeat the master password: ", send: "typed master\n"),
        ], environment: environment)
        #expect(result.status == 0, "\(result)")
        #expect(!result.stdout.contains("typed master"), "the password was echoed: \(result)")
        try Data("typed master\n".utf8).write(to: vault.passwordFile)
        #expect(try vault.run(["list"]).status == 0)
    }

    /// As passwd(1): two entries that differ ask again (an empty one too), three times at most.
    @Test func initAsksAgainWhenTheTwoPasswordsDiffer() throws {
        let vault = try TestVault(initialize: false)
        var environment = vault.environment
        environment["KEYSHELF_PASSWORD_FILE"] = nil
        let result = try PseudoTerminal.run(["init"], steps: [
            .init(expect: "New master password: ", send: "typed master\n"),
            .init(expect: "Repeat the master password: ", send: "typed masterr\n"),
            .init(expect: "the two passwords differ; try again", send: ""),
            .init(expect: "New master password: ", send: "\n"),
            .init(expect: "the password is empty; try again", send: ""),
            .init(expect: "New master password: ", send: "typed master\n"),
            .init(expect: "Repeat the master password: ", send: "typed master\n"),
        ], environment: environment)
        #expect(result.status == 0, "\(result)")
        try Data("typed master\n".utf8).write(to: vault.passwordFile)
        #expect(try vault.run(["list"]).status == 0)
    }

    @Test func initWithThreeTimesTwoDifferentPasswordsCreatesNothing() throws {
        let vault = try TestVault(initialize: false)
        var environment = vault.environment
        environment["KEYSHELF_PASSWORD_FILE"] = nil
        let tries: [PseudoTerminal.Step] = (1...3).flatMap { i in [
            .init(expect: "New master password: ", send: "one\n"),
            .init(expect: "Repeat the master password: ", send: "two \(i)\n"),
        ] }
        let result = try PseudoTerminal.run(["init"], steps: tries, environment: environment)
        #expect(result.status == 2, "\(result)")
        #expect(result.stdout.contains("the two passwords differ (3 tries); nothing was changed"), "\(result)")
        #expect(try vault.snapshot().isEmpty)
    }

    /// Without a terminal the password comes from the descriptor once: nothing to repeat, nothing asked again.
    @Test func initFromADescriptorReadsOnceAndAnEmptyLineIsRefused() throws {
        let vault = try TestVault(initialize: false)
        let result = try vault.run(["init", "--password-fd", "0"], stdin: "\n") { $0["KEYSHELF_PASSWORD_FILE"] = nil }
        #expect(result.status == 2, "\(result)")
        #expect(result.stderr.contains("the password read from file descriptor 0 is empty"), "\(result)")
        #expect(try vault.snapshot().isEmpty)
    }

    @Test func initWarnsAboutAShortMasterPasswordAndAsksAgainByDefault() throws {
        let vault = try TestVault(initialize: false)
        var environment = vault.environment
        environment["KEYSHELF_PASSWORD_FILE"] = nil
        let result = try PseudoTerminal.run(["init"], steps: [
            .init(expect: "New master password: ", send: "short\n"),
            .init(expect: "Repeat the master password: ", send: "short\n"),
            .init(expect: "Short master passwords can be guessed; continue? [y/N] ", send: "\n"),
            .init(expect: "New master password: ", send: "a longer master\n"),
            .init(expect: "Repeat the master password: ", send: "a longer master\n"),
        ], environment: environment)
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.contains("fewer than 12 characters"))
        try Data("a longer master\n".utf8).write(to: vault.passwordFile)
        #expect(try vault.run(["list"]).status == 0)
    }

    @Test func passwdKeepsAShortMasterPasswordOnlyWhenConfirmed() throws {
        let vault = try TestVault()
        let result = try PseudoTerminal.run(["passwd"], steps: [
            .init(expect: "New master password: ", send: "short\n"),
            .init(expect: "Repeat the new master password: ", send: "short\n"),
            .init(expect: "continue? [y/N] ", send: "y\n"),
        ], environment: vault.environment)
        #expect(result.status == 0, "\(result)")
        #expect(!result.stdout.contains("warning:"))
        try Data("short\n".utf8).write(to: vault.passwordFile)
        #expect(try vault.run(["list"]).status == 0)
    }

    @Test func theDeleteDialogDefaultsToCancel() throws {
        let vault = try TestVault()
        try vault.add("example.com", "alice", password: "pw")
        let before = try vault.snapshot()
        let result = try PseudoTerminal.run(["rm", "example.com", "alice"], steps: [
            .init(expect: "Choice [1]: ", send: "\n"),
        ], environment: vault.environment)
        #expect(result.status == 4, "\(result)")
        #expect(result.stdout.contains("Delete Saved Password?"))
        #expect(result.stdout.contains("1) Cancel  (default)"))
        #expect(result.stdout.contains("2) Delete"))
        #expect(result.stdout.contains("\"alice\" on example.com"))
        #expect(try vault.snapshot() == before)
    }

    @Test func choosingDeleteDeletes() throws {
        let vault = try TestVault()
        try vault.add("example.com", "alice", password: "pw")
        let result = try PseudoTerminal.run(["rm", "example.com", "alice"], steps: [
            .init(expect: "Choice [1]: ", send: "2\n"),
        ], environment: vault.environment)
        #expect(result.status == 0, "\(result)")
        #expect(try vault.run(["list"]).stdout.isEmpty)
    }

    @Test func releasingASharedPasswordLetsTheUserPickTheAccount() throws {
        let vault = try TestVault()
        try vault.add("example.com", "alice", password: "alice-pw")
        try vault.add("example.com", "bob", password: "bob-pw")
        let result = try PseudoTerminal.run(["get", "example.com"], steps: [
            .init(expect: "Choice [1]: ", send: "3\n"),
        ], environment: vault.environment)
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.contains("Use Saved Password for example.com?"))
        #expect(result.stdout.contains("bob-pw"))
        #expect(!result.stdout.contains("alice-pw"))
    }

    @Test func theMasterPasswordIsAskedOnTheTerminal() throws {
        let vault = try TestVault()
        try vault.add("example.com", "alice", password: "pw", local: true)
        var environment = vault.environment
        environment["KEYSHELF_PASSWORD_FILE"] = nil
        let wrong = try PseudoTerminal.run(["get", "example.com"], steps: [
            .init(expect: "Master password: ", send: "nope\n"),
        ], environment: environment)
        #expect(wrong.status == 5, "\(wrong)")
        let right = try PseudoTerminal.run(["get", "example.com"], steps: [
            .init(expect: "Master password: ", send: TestVault.masterPassword + "\n"),
        ], environment: environment)
        #expect(right.status == 0, "\(right)")
        #expect(right.stdout.hasSuffix("pw\r\n"))
    }
}
