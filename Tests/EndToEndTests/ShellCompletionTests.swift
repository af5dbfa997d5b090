import Foundation
import KeyshelfTestSupport
import Glibc
import Testing

/// Completion in the real shells (issue 17 item 2): bash and zsh through
/// their line editors in tmux, fish through `complete -C`; names come from
/// `keyshelf __complete` only while the agent is unlocked, never by asking.
@Suite(.serialized) struct ShellCompletionTests {
    /// A vault with awkward account names, served by an unlocked agent
    /// whose runtime directory is short (socket paths must fit 107 bytes).
    final class Fixture {
        let vault: TestVault
        let runtime: String

        init() throws {
            vault = try TestVault()
            var template = Array("/tmp/ksc-XXXXXX".utf8CString)
            guard let made = mkdtemp(&template) else { throw SetupError(run: Run(status: -1, stdoutData: Data(), stderr: "mkdtemp")) }
            runtime = String(cString: made)
            for account in ["alice", "José Smith", "o$car;(x)"] { try add("example.com", account) }
            try add("git.example.org:8443", "ci")
        }

        deinit {
            _ = try? run(["lock"])
            try? FileManager.default.removeItem(atPath: runtime)
        }

        func add(_ server: String, _ account: String) throws {
            let result = try run(["add", server, account, "--password-stdin"], stdin: "pw\n")
            guard result.status == 0 else { throw SetupError(run: result) }
        }

        func run(_ arguments: [String], stdin: String? = nil) throws -> Run {
            try vault.run(arguments, stdin: stdin) { $0["XDG_RUNTIME_DIR"] = self.runtime }
        }

        func unlock() throws {
            let result = try run(["unlock"])
            guard result.status == 0 else { throw SetupError(run: result) }
        }

        /// What an interactive shell gets: the binary on PATH, this vault and
        /// runtime directory, and no master password source at all.
        var shellEnvironment: [String: String] {
            [
                "PATH": Keyshelf.binary.deletingLastPathComponent().path + ":/usr/bin:/bin",
                "HOME": vault.root.path,
                "LANG": "C.UTF-8",
                "KEYSHELF_VAULT": vault.directory.path,
                "XDG_RUNTIME_DIR": runtime,
            ]
        }

        /// Writes `keyshelf completion SHELL` to a file and returns its path.
        func script(_ shell: String, name: String) throws -> String {
            let result = try run(["completion", shell])
            guard result.status == 0 else { throw SetupError(run: result) }
            let folder = vault.root.appendingPathComponent("completions")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let file = folder.appendingPathComponent(name)
            try result.stdoutData.write(to: file)
            return file.path
        }
    }

    @Test func bashCompletesCommandsFlagsValuesAndEscapedNames() throws {
        let fixture = try Fixture()
        try fixture.unlock()
        let script = try fixture.script("bash", name: "keyshelf")
        let shell = try ShellSession(shell: ["/bin/bash", "--norc", "--noprofile", "-i"],
                                     environment: fixture.shellEnvironment, setup: ["source \(script)"])
        try shell.complete("keyshelf imp", expecting: "keyshelf import ")
        try shell.complete("keyshelf get --js", expecting: "keyshelf get --json ")
        try shell.complete("keyshelf init --kdf sen", expecting: "keyshelf init --kdf sensitive ")
        try shell.complete("keyshelf completion z", expecting: "keyshelf completion zsh ")
        try shell.complete("keyshelf get exa", expecting: "keyshelf get example.com ")
        try shell.complete("keyshelf get git.example.org:8", expecting: "keyshelf get git.example.org:8443 ")
        try shell.complete("keyshelf get example.com Jo", expecting: #"keyshelf get example.com José\ Smith "#)
        try shell.complete("keyshelf --vault \(fixture.vault.directory.path) rm example.com o",
                           expecting: "keyshelf --vault \(fixture.vault.directory.path) rm example.com " + #"o\$car\;\(x\) "#)
        try lockedTabAsksNothing(shell, fixture)
    }

    @Test func zshCompletesCommandsFlagsValuesAndEscapedNames() throws {
        let fixture = try Fixture()
        try fixture.unlock()
        let script = try fixture.script("zsh", name: "_keyshelf")
        let folder = URL(fileURLWithPath: script).deletingLastPathComponent().path
        let shell = try ShellSession(shell: ["/usr/bin/zsh", "-f", "-i"], environment: fixture.shellEnvironment,
                                     setup: ["fpath=(\(folder) $fpath); autoload -U compinit; compinit -u -D"])
        try shell.complete("keyshelf imp", expecting: "keyshelf import ")
        try shell.complete("keyshelf get --js", expecting: "keyshelf get --json ")
        try shell.complete("keyshelf init --kdf sen", expecting: "keyshelf init --kdf sensitive ")
        try shell.complete("keyshelf get exa", expecting: "keyshelf get example.com ")
        try shell.complete("keyshelf get git.example.org:8", expecting: "keyshelf get git.example.org:8443 ")
        try shell.complete("keyshelf get example.com Jo", expecting: #"keyshelf get example.com José\ Smith "#)
        try shell.complete("keyshelf rm example.com o", expecting: #"keyshelf rm example.com o\$car\;\(x\) "#)
        try lockedTabAsksNothing(shell, fixture)
    }

    /// Locked: Tab offers no name and asks nothing: what is typed next
    /// lands on the command line, not in a password prompt.
    private func lockedTabAsksNothing(_ shell: ShellSession, _ fixture: Fixture) throws {
        #expect(try fixture.run(["lock"]).status == 0)
        try shell.tmux(["send-keys", "C-u"])
        try shell.type("keyshelf get exa")
        try shell.tmux(["send-keys", "Tab"])
        try shell.type("MARK")
        let screen = try shell.waitFor { $0.contains("keyshelf get exaMARK") }
        #expect(!screen.lowercased().contains("password"))
    }

    @Test func fishCompletesCommandsFlagsValuesAndNames() throws {
        let fixture = try Fixture()
        try fixture.unlock()
        let script = try fixture.script("fish", name: "keyshelf.fish")
        func complete(_ line: String) throws -> [String] {
            let result = try Program.run("/usr/bin/fish", ["--no-config", "-c", "source \(script); complete -C \(ShellSession.quote(line))"],
                                                 environment: fixture.shellEnvironment)
            #expect(result.status == 0, "\(result)")
            return result.lines.map { String($0.split(separator: "\t", maxSplits: 1)[0]) }
        }
        #expect(try complete("keyshelf imp") == ["import"])
        #expect(try complete("keyshelf get --js") == ["--json"])
        #expect(try complete("keyshelf init --kdf ") == ["interactive", "moderate", "sensitive"])
        #expect(try complete("keyshelf otp ").sorted() == ["example.com", "git.example.org:8443", "set", "uri"])
        #expect(try complete("keyshelf get example.com ").sorted() == ["José Smith", "alice", "o$car;(x)"])
        #expect(try fixture.run(["lock"]).status == 0)
        #expect(try complete("keyshelf get ") == [])
    }

    /// `__complete` answers from the unlocked agent only: with the master
    /// password available in $KEYSHELF_PASSWORD_FILE it still prints nothing
    /// while locked, exit 0, and nothing on standard error.
    @Test func namesComeOnlyFromAnUnlockedAgent() throws {
        let fixture = try Fixture()
        let locked = try fixture.run(["__complete", "servers"])
        #expect(locked.status == 0 && locked.stdout.isEmpty && locked.stderr.isEmpty, "\(locked)")
        try fixture.unlock()
        #expect(try fixture.run(["__complete", "servers"]).lines == ["example.com", "git.example.org:8443"])
        #expect(try fixture.run(["__complete", "accounts", "--", "example.com"]).lines.sorted() == ["José Smith", "alice", "o$car;(x)"])
        #expect(try fixture.run(["__complete", "accounts", "--", "nowhere.example"]).stdout.isEmpty)
        #expect(try fixture.run(["__complete", "themes"]).lines.contains("dark"))
    }

    @Test func statusExitsZeroUnlockedAndNineLocked() throws {
        let fixture = try Fixture()
        let locked = try fixture.run(["status"])
        #expect(locked.status == 9 && locked.stdout.hasPrefix("locked"), "\(locked)")
        #expect(try fixture.run(["status", "--json"]).status == 9)
        try fixture.unlock()
        #expect(try fixture.run(["status"]).status == 0)
        #expect(try fixture.run(["status", "--json"]).status == 0)
    }
}
