import Foundation
import Glibc
import KeyshelfTestSupport
import Testing

/// The thin `keyshelf` (Sources/keyshelf, docs/architecture.md "The thin
/// client") against the full program it stands in front of: every command
/// line, served by it or handed on, must give the same standard output,
/// standard error and exit status as `keyshelf-full` run with the same
/// arguments and environment.
@Suite struct ThinClientTests {
    /// The full program built beside the thin client.
    static var full: URL { BuiltProduct.keyshelf.deletingLastPathComponent().appendingPathComponent("keyshelf-full") }

    /// A vault with web logins (local, shared, a port and scheme, hostile
    /// ASCII and non-ASCII names) and generic passwords, and its own `XDG_RUNTIME_DIR`.
    final class Shelf {
        let vault: TemporaryVault
        let runtime: String

        init() throws {
            vault = try TemporaryVault(shortRoot: true)
            runtime = vault.root.path + "/run"
            mkdir(runtime, 0o700)
            for (server, account, store) in [("example.com", "alice", "--local"), ("http://h.example.com:8080", "bob\ttab", "--shared"),
                                             ("weird.example.com", "esc\u{1B}[31m\u{7F}", "--local"), ("git.example.com", "carol", "--shared")] {
                try check(["add", server, account, store, "--password-stdin"], stdin: "pw-\(account)\n")
            }
            try check(["add", "--service", "api.github", "me", "--password-stdin"], stdin: "token\n")
            try check(["add", "--service", "svc\ttab", "a\u{1}b", "--password-stdin"], stdin: "other\n")
        }

        /// The runs' environment; `withPassword: false` leaves only the agent to open the vault.
        func environment(withPassword: Bool = false) -> [String: String] {
            var environment = vault.environment
            environment["XDG_RUNTIME_DIR"] = runtime
            if !withPassword { environment["KEYSHELF_PASSWORD_FILE"] = nil }
            return environment
        }

        /// `program arguments` without a controlling terminal.
        func run(_ program: URL, _ arguments: [String], stdin: String = "", withPassword: Bool = false) throws -> Run {
            try Program.runDetached(program.path, arguments, stdin: Data(stdin.utf8), environment: environment(withPassword: withPassword))
        }

        @discardableResult
        func check(_ arguments: [String], stdin: String = "") throws -> Run {
            let result = try run(BuiltProduct.keyshelf, arguments, stdin: stdin, withPassword: true)
            guard result.status == 0 else { throw TestProcessError(message: "keyshelf \(arguments) failed: \(result)") }
            return result
        }

        /// Locks the agent and kills it if it is still there; removes nothing else (the vault does).
        func stop() {
            let pid = try? agentPID()
            _ = try? run(BuiltProduct.keyshelf, ["lock"])
            if let pid { kill(pid, SIGKILL) }
        }

        /// The pid of this test's agent (`keyshelf-full __agent RUNTIME/keyshelf VAULT`), nil when none runs.
        func agentPID() throws -> Int32? {
            for entry in try FileManager.default.contentsOfDirectory(atPath: "/proc") {
                guard let pid = Int32(entry), let cmdline = FileManager.default.contents(atPath: "/proc/\(entry)/cmdline") else { continue }
                let words = cmdline.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
                if words.count >= 3, words[1] == "__agent", words[2] == runtime + "/keyshelf" { return pid }
            }
            return nil
        }

        /// Runs `arguments` through the thin client and the full program and
        /// expects the same output and exit status.
        func expectSame(_ arguments: [String], stdin: String = "", withPassword: Bool = false,
                        sourceLocation: SourceLocation = #_sourceLocation) throws {
            let thin = try run(BuiltProduct.keyshelf, arguments, stdin: stdin, withPassword: withPassword)
            let full = try run(ThinClientTests.full, arguments, stdin: stdin, withPassword: withPassword)
            #expect(thin.status == full.status, "\(arguments): thin \(thin) full \(full)", sourceLocation: sourceLocation)
            #expect(thin.stdoutData == full.stdoutData, "\(arguments): thin \(thin) full \(full)", sourceLocation: sourceLocation)
            #expect(thin.stderr == full.stderr, "\(arguments): thin \(thin) full \(full)", sourceLocation: sourceLocation)
        }
    }

    /// What the thin client answers itself, and what it hands on, with an unlocked agent.
    static let servedCommandLines: [[String]] = [
        ["get", "example.com", "alice"],
        ["get", "example.com"],
        ["get", "h.example.com:8080", "bob\ttab", "--yes"],
        ["get", "http://h.example.com:8080", "-y", "--shared"],
        ["get", "weird.example.com", "esc\u{1B}[31m\u{7F}", "--local"],
        ["list"], ["list", "--local"], ["list", "--shared"], ["list", "example.com"], ["list", "http://h.example.com:8080"],
        ["search", "example"], ["search", "api"], ["search", "tab"], ["search", "ESC"],
    ]

    @Test func servedCommandsPrintWhatTheFullProgramPrints() throws {
        let shelf = try Shelf()
        defer { shelf.stop() }
        try shelf.check(["unlock"])
        for arguments in Self.servedCommandLines {
            try shelf.expectSame(arguments)
            try shelf.expectSame(["--vault", shelf.vault.directory.path] + arguments)
        }
    }

    @Test func everythingElseIsTheFullProgramsAnswer() throws {
        let shelf = try Shelf()
        defer { shelf.stop() }
        try shelf.check(["add", "bücher.example", "dora", "--local", "--password-stdin"], stdin: "umlaut\n")
        try shelf.check(["unlock"])
        for arguments in [
            ["frobnicate"], ["--version"], ["--help"], ["get", "--help"], ["get", "example.com", "alice", "--frob"],
            ["list", "--json"], ["search", "example", "--json"], ["get", "example.com", "alice", "--json"],
            ["get", "EXAMPLE.com", "alice"], ["get", "git.example.com", "carol"], ["get", "nothing.example"],
            ["list", "nothing.example"], ["search", "no such text"], ["get", "example.com", "alice", "--local", "--shared"],
            ["get", "example.com", ""], ["get", "--", "example.com"], ["list", "--yes"], ["search", "x", "--local"],
            ["list", "bücher.example"], ["search", "dora"], ["list"], ["get", "example.com", "alice", "--no-agent"],
            ["--vault", "relative/path", "list"], ["--vault", "/nonexistent/vault", "list"], ["get", "example.com", "alice", "extra"],
        ] {
            try shelf.expectSame(arguments)
        }
    }

    @Test func aLockedOrAbsentOrGoneAgentIsTheFullProgramsAnswer() throws {
        let shelf = try Shelf()
        defer { shelf.stop() }
        let commandLines = [["get", "example.com", "alice"], ["list"], ["search", "example"]]
        // No agent ever started: no socket directory.
        for arguments in commandLines { try shelf.expectSame(arguments) }
        try shelf.check(["unlock"])
        try shelf.check(["lock"])
        // Locked: the directory is there, the socket is not.
        for arguments in commandLines { try shelf.expectSame(arguments) }
        try shelf.check(["unlock"])
        let pid = try #require(try shelf.agentPID())
        kill(pid, SIGKILL)
        usleep(200_000)
        // Killed: a stale socket nobody listens on.
        for arguments in commandLines { try shelf.expectSame(arguments) }
    }

    /// `add --password-stdin` and `rm --yes` (served, or handed on with the
    /// password line put back on standard input), each run through the thin
    /// client on one vault and through the full program on a twin: the same
    /// output and exit status at every step, and the same vault contents after.
    static let writes: [(arguments: [String], stdin: String)] = [
        (["add", "new.example", "alice", "--password-stdin"], "pw1\n"),                  // a new account
        (["add", "new.example", "alice", "--password-stdin", "--yes"], "pw2\nnot read\n"),  // a changed password
        (["add", "new.example", "alice", "--password-stdin", "-y"], "pw2\r\n"),            // the same password
        (["rm", "new.example", "alice", "--yes"], ""),
        (["add", "new.example", "alice", "--password-stdin"], "pw3"),                     // re-added after rm, no newline
        (["add", "example.com", "alice", "--password-stdin", "--yes", "--local"], "x\n"),
        (["add", "example.com", "alice", "--password-stdin", "--shared"], "y\n"),
        (["add", "example.com", "alice", "--password-stdin", "--yes"], "z\n"),              // both stores
        (["add", "h.example.com:8080", "bob\ttab", "--password-stdin", "--yes"], "b\n"),  // resolved to http://
        (["add", "weird.example.com", "esc\u{1B}[31m\u{7F}", "--password-stdin", "--yes"], "e\n"),
        (["add", "smtp://mail.example.com:2525", "q\"uo\\te\u{1}", "--password-stdin", "--local"], "q\n"),
        (["--vault", "VAULT", "add", "other.example", "-", "--password-stdin"], "dash\n"),
        (["add", "other.example", "-", "--vault=VAULT", "--password-stdin", "--yes"], "dash2\n"),
        (["rm", "smtp://mail.example.com:2525", "q\"uo\\te\u{1}", "-y", "--local"], ""),
        (["rm", "http://h.example.com:8080", "bob\ttab", "--yes"], ""),
        (["rm", "example.com", "alice", "--yes", "--shared"], ""),
        (["edit", "example.com", "alice", "--label", "Work"], ""),
        (["edit", "example.com", "alice", "--label=", "-y", "--local"], ""),
        (["edit", "new.example", "alice", "--account", "alicia", "--move-to", "local"], ""),
        (["edit", "new.example", "alicia", "--account=zed", "--label", "--move-to"], ""),  // the label is "--move-to"
        (["--vault", "VAULT", "edit", "other.example", "-", "--move-to", "shared"], ""),
        // Handed on: nothing found; consent needed (no terminal: declined); the input the full program reports on.
        (["edit", "nothing.example", "nobody", "--label", "x"], ""),
        (["edit", "new.example", "zed", "--account", "-", "--server", "other.example"], ""),
        (["edit", "example.com", "alice", "--account", ""], ""),
        (["edit", "example.com", "alice", "--label", "a", "--label", "b"], ""),
        (["edit", "example.com", "alice", "--move-to", "nowhere"], ""),
        (["edit", "example.com", "alice", "--label"], ""),
        (["edit", "example.com", "alice"], ""),
        (["edit", "example.com", "alice", "--account", "zoë"], ""),
        (["rm", "nothing.example", "nobody", "--yes"], ""),
        (["rm", "example.com", "alice"], ""),
        (["add", "example.com", "alice", "--password-stdin"], "changed\n"),
        (["add", "empty.example", "e", "--password-stdin"], "\nsecond line\n"),
        (["add", "empty.example", "e", "--password-stdin"], "\r\n"),
        (["add", "empty.example", "e", "--password-stdin"], ""),
        (["add", "long.example", "l", "--password-stdin"], String(repeating: "x", count: 4097) + "\n"),
        (["add", "long.example", "l", "--password-stdin"], String(repeating: "x", count: 4096) + "\n"),
        (["add", "bücher.example", "dörte", "--password-stdin", "--yes"], "umlaut\n"),
        (["add", "EXAMPLE.com", "alice", "--password-stdin", "--yes"], "upper\n"),
        (["add", "example.com", "alice", "--password-stdin", "--generate"], "g\n"),
        (["add", "example.com", "alice", "--password-stdin", "--local", "--shared"], "g\n"),
    ]

    @Test func addAndRmDoWhatTheFullProgramDoes() throws {
        let thinShelf = try Shelf(), fullShelf = try Shelf()
        defer {
            thinShelf.stop()
            fullShelf.stop()
        }
        try thinShelf.check(["unlock"])
        try fullShelf.check(["unlock"])
        /// The run's output with the vault's own paths replaced, and the
        /// generic passwords' dates (set when each twin was filled, which may
        /// fall in two different seconds), so the twins compare.
        func output(_ run: Run, _ shelf: Shelf) -> String {
            "\(run.status) \(run.stdout) \(run.stderr)".replacingOccurrences(of: shelf.vault.root.path, with: "ROOT")
                .replacingOccurrences(of: #""(created|modified)":"[0-9T:-]+Z""#, with: #""$1":"DATE""#, options: .regularExpression)
        }
        for (arguments, stdin) in Self.writes {
            func on(_ shelf: Shelf) -> [String] { arguments.map { $0.replacingOccurrences(of: "VAULT", with: shelf.vault.directory.path) } }
            let thin = try thinShelf.run(BuiltProduct.keyshelf, on(thinShelf), stdin: stdin)
            let full = try fullShelf.run(Self.full, on(fullShelf), stdin: stdin)
            #expect(output(thin, thinShelf) == output(full, fullShelf), "\(arguments)")
        }
        for arguments in [["list"], ["get", "new.example", "alice"], ["get", "example.com", "alice", "--local"],
                          ["get", "http://h.example.com:8080", "bob\ttab"], ["get", "weird.example.com", "esc\u{1B}[31m\u{7F}"],
                          ["get", "long.example", "l"], ["get", "other.example", "-"], ["list", "--json"]] {
            let thin = try thinShelf.run(Self.full, arguments + ["--no-agent"], withPassword: true)
            let full = try fullShelf.run(Self.full, arguments + ["--no-agent"], withPassword: true)
            #expect(output(thin, thinShelf) == output(full, fullShelf), "\(arguments)")
        }
    }

    /// After the password line was read, an agent that cannot be used (killed:
    /// its socket is left) hands the command on with the line put back, and the
    /// full program saves it with the master password.
    @Test func aGoneAgentGetsAddsPasswordLineToTheFullProgram() throws {
        let shelf = try Shelf()
        defer { shelf.stop() }
        try shelf.check(["unlock"])
        kill(try #require(try shelf.agentPID()), SIGKILL)
        usleep(200_000)
        try shelf.expectSame(["add", "example.com", "alice", "--password-stdin", "--yes"], stdin: "pw-alice\n", withPassword: true)
        try shelf.expectSame(["add", "example.com", "alice", "--password-stdin"], stdin: "pw-alice\n")
        let saved = try shelf.run(Self.full, ["get", "example.com", "alice"], withPassword: true)
        #expect(saved.stdout == "pw-alice\n", "\(saved)")
    }

    /// Alone in a directory, without keyshelf-full beside it, the thin client
    /// still answers what it serves (so it really answers them itself), and
    /// says so when it has to run the full program.
    @Test func theThinClientAnswersWithoutTheFullProgram() throws {
        let shelf = try Shelf()
        defer { shelf.stop() }
        try shelf.check(["unlock"])
        let alone = shelf.vault.root.appendingPathComponent("alone")
        try FileManager.default.createDirectory(at: alone, withIntermediateDirectories: true)
        let thin = alone.appendingPathComponent("keyshelf")
        try FileManager.default.copyItem(at: BuiltProduct.keyshelf, to: thin)
        for arguments in Self.servedCommandLines {
            let answered = try shelf.run(thin, arguments)
            let full = try shelf.run(Self.full, arguments)
            #expect(answered.status == 0 && answered.stdoutData == full.stdoutData && answered.stderr.isEmpty, "\(arguments): \(answered)")
        }
        let added = try shelf.run(thin, ["add", "new.example", "zed", "--password-stdin"], stdin: "pw\n")
        #expect(added.status == 0 && added.stdout.isEmpty, "\(added)")
        #expect(added.stderr == "keyshelf: saved the password for \"zed\" on new.example in the shared credentials\n")
        let removed = try shelf.run(thin, ["rm", "new.example", "zed", "--yes", "--shared"])
        #expect(removed.status == 0 && removed.stdout.isEmpty, "\(removed)")
        #expect(removed.stderr == "keyshelf: deleted the password for \"zed\" on new.example from the shared credentials\n")
        let edited = try shelf.run(thin, ["edit", "git.example.com", "carol", "--label", "Build bot"])
        #expect(edited.status == 0 && edited.stdout.isEmpty, "\(edited)")
        #expect(edited.stderr == "keyshelf: changed \"carol\" on git.example.com, now in the shared credentials\n")
        let json = try shelf.run(Self.full, ["get", "git.example.com", "carol", "--json", "--yes"])
        #expect((try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])?["label"] as? String == "Build bot", "\(json)")
        let handedOn = try shelf.run(thin, ["get", "git.example.com", "carol"])
        #expect(handedOn.status == 1)
        #expect(handedOn.stderr == "keyshelf: cannot run the full program \(alone.path)/keyshelf-full: No such file or directory\n")
        #expect(handedOn.stdout.isEmpty)
    }

    /// The point of the thin client: no Foundation (nor libcurl, libxml2, ICU) to load.
    @Test func theThinClientLinksNoFoundation() throws {
        let libraries = try Program.run("/usr/bin/ldd", [BuiltProduct.keyshelf.path], environment: nil)
        #expect(libraries.status == 0 || libraries.stdout.contains("not a dynamic executable"), "\(libraries)")
        for name in ["Foundation", "libcurl", "libxml2", "libicu", "libxdg", "libncurses"] {
            #expect(!libraries.stdout.contains(name), "\(name) in \(libraries.stdout)")
        }
    }
}
