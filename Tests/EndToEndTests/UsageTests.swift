import Foundation
import Testing

/// The command line itself: help, version, and usage errors (exit 2), which
/// need no vault.
@Suite struct UsageTests {
    let environment = ["PATH": "/usr/bin:/bin", "HOME": "/nonexistent", "LANG": "C.UTF-8"]

    @Test func versionPrintsTheVersion() throws {
        let result = try Keyshelf.run(["--version"], environment: environment)
        #expect(result.status == 0)
        #expect(result.stdout.hasPrefix("keyshelf "))
    }

    @Test func topLevelHelpListsEveryCommandAndTheExitCodes() throws {
        let result = try Keyshelf.run(["--help"], environment: environment)
        #expect(result.status == 0)
        for command in ["init", "generate", "add", "get", "list", "search", "rm", "login", "passwd", "credential", "demo"] {
            #expect(result.stdout.contains("\n  \(command) "), "missing \(command)")
        }
        #expect(result.stdout.contains("7 vault damaged"))
    }

    @Test(arguments: ["init", "generate", "add", "get", "list", "search", "rm", "login", "passwd", "credential", "demo"])
    func everyCommandHasHelp(command: String) throws {
        let result = try Keyshelf.run([command, "--help"], environment: environment)
        #expect(result.status == 0)
        #expect(result.stdout.hasPrefix("usage: keyshelf \(command)"))
        #expect(result.stdout.contains("--help"))
        #expect(result.stderr.isEmpty)
    }

    @Test(arguments: [
        (["get", "--bogus", "example.com"], "unknown option '--bogus'"),
        (["bogus"], "unknown command 'bogus'"),
        (["get"], "missing argument SERVER"),
        (["add", "example.com"], "missing argument ACCOUNT"),
        (["rm", "example.com", "alice", "extra"], "unexpected argument 'extra'"),
        (["generate", "--count", "0"], "--count"),
        (["generate", "--count"], "needs a value"),
        (["list", "--local", "--shared"], "exclude each other"),
        (["add", "example.com", "alice", "--generate", "--password-stdin"], "exclude each other"),
        (["init", "--kdf", "extreme"], "'extreme'"),
        (["get", "--json=yes", "example.com"], "takes no value"),
        (["--frobnicate"], "unknown option '--frobnicate'"),
        (["list", "--vault", "a", "--vault", "b"], "option '--vault' is given more than once"),
        (["--vault", "a", "list", "--vault=b"], "option '--vault' is given more than once"),
        (["list", "--password-fd", "3", "--password-fd", "4"], "option '--password-fd' is given more than once"),
        (["generate", "-n", "2", "--count", "3"], "option '--count/-n' is given more than once"),
        (["improt", "x.csv"], "unknown command 'improt'; did you mean 'import'?"),
        (["stauts"], "did you mean 'status'?"),
        (["list", "--jsno"], "unknown option '--jsno' for 'keyshelf list'; did you mean '--json'?"),
        (["--vualt", "x"], "did you mean '--vault'?"),
    ])
    func usageErrorsExitTwoWithAMessage(arguments: [String], message: String) throws {
        let result = try Keyshelf.run(arguments, environment: environment)
        #expect(result.status == 2, "\(result)")
        #expect(result.stderr.contains(message), "\(result)")
        #expect(result.stdout.isEmpty)
    }

    @Test func hostileArgumentsAreQuotedInertInMessages() throws {
        let result = try Keyshelf.run(["get", "--\u{1B}]0;pwned\u{07}"], environment: environment)
        #expect(result.status == 2)
        #expect(!result.stderr.contains("\u{1B}"))
        #expect(result.stderr.contains("\\u{1B}"))
    }
}
