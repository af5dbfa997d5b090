import Foundation
import Glibc
import KeyshelfCredentials
import KeyshelfCrypto
import KeyshelfVault
import Testing
@testable import KeyshelfAgent

/// The credentials operations the agent answers from the vault it keeps open
/// (get, list, search, add; rm in AgentDeleteTests): consent relayed to the client, changes made
/// elsewhere picked up, and the CLI printing the same with and without it.
@Suite struct AgentOperationTests {
    func password(_ h: AgentHarness, _ server: String, _ account: String) throws -> String {
        try h.check(h.run(["get", server, account, "--no-agent", "--yes"])).stdout
    }

    @Test func aSharedPasswordIsReleasedOnlyAfterTheClientsConsent() throws {
        let h = try AgentHarness()
        defer { h.stop() }
        try h.check(h.run(["add", "example.com", "alice", "--password-stdin"], stdin: "s3cret\n"))
        try h.check(h.run(["unlock"]))
        let site = try ServerName(parsing: "example.com")

        let declined = ScriptedConsent([.declined])
        #expect(throws: KeychainError(.userCanceled, "")) { try h.perform(.get(server: ServerPattern(site), account: nil, filter: .both), consent: declined) }
        #expect(declined.requests == [.release(server: site, accounts: ["alice"])])

        let approved = ScriptedConsent([.approved])
        guard case .record(let record)? = try h.perform(.get(server: ServerPattern(site), account: "alice", filter: .both), consent: approved) else {
            Issue.record("the agent did not answer")
            return
        }
        #expect(record.password == Secret(utf8: "s3cret") && record.store == .shared && record.account == "alice")
        #expect(approved.requests.count == 1)

        // --yes approves in advance: nobody is asked.
        let untouched = ScriptedConsent([])
        guard case .record? = try h.perform(.get(server: ServerPattern(site), account: "alice", filter: .both), consent: untouched, approveAll: true) else {
            Issue.record("the agent did not answer with --yes")
            return
        }
        #expect(untouched.requests.isEmpty)
        #expect(throws: KeychainError(.itemNotFound, "")) { try h.perform(.get(server: ServerPattern(site), account: "bob", filter: .both)) }
    }

    @Test func anUpdateAsksTheClientAndADeclineChangesNothing() throws {
        let h = try AgentHarness()
        defer { h.stop() }
        try h.check(h.run(["add", "example.com", "alice", "--password-stdin"], stdin: "old\n"))
        try h.check(h.run(["unlock"]))
        let site = try ServerName(parsing: "example.com")
        let update = ShelfOperation.change(server: ServerPattern(site), account: "alice", password: Secret(utf8: "new"), filter: .shared, newItems: .shared)

        let declined = ScriptedConsent([.declined])
        #expect(throws: KeychainError(.userCanceled, "")) { try h.perform(update, consent: declined) }
        #expect(declined.requests == [.update(server: site, account: "alice")])
        #expect(try password(h, "example.com", "alice") == "old\n")

        let approved = ScriptedConsent([.approved])
        guard case .changed(let outcome)? = try h.perform(update, consent: approved) else {
            Issue.record("the agent did not answer")
            return
        }
        #expect(outcome.shared == .updated && outcome.local == nil)
        #expect(try password(h, "example.com", "alice") == "new\n")
        guard case .changed(let again)? = try h.perform(update) else { return }
        #expect(again.shared == .unchanged, "the same password again asks nobody")
    }

    @Test func changesMadeWithoutTheAgentAreSeenByIt() throws {
        let h = try AgentHarness()
        defer { h.stop() }
        try h.check(h.run(["add", "example.com", "alice", "--local", "--password-stdin"], stdin: "first\n"))
        try h.check(h.run(["unlock"]))
        let site = try ServerName(parsing: "example.com")
        guard case .record(let before)? = try h.perform(.get(server: ServerPattern(site), account: "alice", filter: .local)) else {
            Issue.record("the agent did not answer")
            return
        }
        #expect(before.password == Secret(utf8: "first"))
        try h.check(h.run(["add", "example.com", "alice", "--local", "--password-stdin", "--no-agent", "--yes"], stdin: "second\n"))
        try h.check(h.run(["add", "other.example", "bob", "--local", "--password-stdin", "--no-agent"], stdin: "x\n"))
        guard case .record(let after)? = try h.perform(.get(server: ServerPattern(site), account: "alice", filter: .local)),
              case .records(let listed)? = try h.perform(.list(server: nil, filter: .both)),
              case .found(let found, _)? = try h.perform(.search(query: "BOB", filter: .both)) else {
            Issue.record("the agent did not answer")
            return
        }
        #expect(after.password == Secret(utf8: "second"))
        #expect(listed.map(\.account) == ["alice", "bob"])
        #expect(found.map(\.server.host) == ["other.example"])
        #expect(listed.allSatisfy { $0.password == nil }, "listings carry no passwords")
    }

    @Test func anItemThatReasksTheMasterPasswordIsHandedBack() throws {
        let h = try AgentHarness()
        defer { h.stop() }
        let directory = VaultDirectory(url: URL(fileURLWithPath: h.vault))
        let session = try directory.unlock(password: Secret(utf8: AgentHarness.masterPassword))
        try session.modify {
            $0.local.append(Item(account: "root", server: "admin.example", accessControl: .userPresence, password: Secret(utf8: "guarded")))
        }
        session.lock()
        try h.check(h.run(["unlock"]))
        let site = try ServerName(parsing: "admin.example")
        #expect(try h.perform(.get(server: ServerPattern(site), account: "root", filter: .both)) == nil, "the client must ask for the master password itself")
        // The CLI then opens the vault itself; without a terminal nobody can confirm, as without the agent.
        let viaAgent = try h.run(["get", "admin.example", "root"], withPassword: false)
        let direct = try h.run(["get", "admin.example", "root", "--no-agent"])
        #expect(viaAgent.status == direct.status && viaAgent.status != 0, "\(viaAgent)\n\(direct)")
    }

    @Test func theCLIPrintsTheSameThroughTheAgent() throws {
        let h = try AgentHarness()
        defer { h.stop() }
        let entries: [(String, String, [String])] = [
            ("bücher.example:8443", "anna", []),
            ("bücher.example:8443", "zoë\u{1B}[31m", []),
            ("[2001:db8::1]:2222", "ops", ["--local"]),
            ("http://plain.example", "old", []),
            ("example.com", "alice", ["--local"]),
            ("example.com", "alice", []),
        ]
        for (server, account, flags) in entries {
            try h.check(h.run(["add", server, account, "--password-stdin"] + flags, stdin: "pw-\(account)\n"))
        }
        try h.check(h.run(["unlock"]))
        let commands: [[String]] = [
            ["list"], ["list", "--json"], ["list", "bücher.example:8443"], ["list", "--local"], ["list", "--shared", "--json"],
            ["search", "ZOË"], ["search", "xn--bcher", "--json"], ["search", "2001:db8"],
            ["get", "example.com", "alice", "--json"], ["get", "example.com", "alice", "--shared", "--yes"],
            ["get", "bücher.example:8443", "anna", "--yes", "--json"], ["get", "nowhere.example"], ["list", "nowhere.example"],
            ["search", "no such text"], ["get", "bücher.example:8443"],
        ]
        for command in commands {
            let viaAgent = try h.run(command, withPassword: false)
            let direct = try h.run(command + ["--no-agent"])
            #expect(viaAgent.status == direct.status && viaAgent.stdout == direct.stdout && viaAgent.stderr == direct.stderr,
                    "\(command)\nagent: \(viaAgent)\ndirect: \(direct)")
        }
    }

    /// Issue 12 item 4: the agent's `search` answers the generic passwords
    /// too (every field, dates exactly), so `keyshelf search` prints the
    /// same with and without it.
    @Test func searchThroughTheAgentCarriesGenericPasswords() throws {
        let h = try AgentHarness()
        defer { h.stop() }
        try h.check(h.run(["add", "--service", "backup-tool", "robot", "--password-stdin", "--notes-stdin", "--label", "Nightly zoë"],
                          stdin: "hunter2\nrotate in May\n"))
        try h.check(h.run(["add", "--service", "wifi", "home\u{1B}[31m", "--password-stdin", "--synchronizable"], stdin: "psk\n"))
        try h.check(h.run(["add", "backup.example", "web", "--password-stdin"], stdin: "pw\n"))
        try h.check(h.run(["unlock"]))
        guard case let .found(records, generics)? = try h.perform(.search(query: "BACKUP", filter: .both)) else {
            Issue.record("the agent did not answer the search")
            return
        }
        #expect(records.map(\.account) == ["web"])
        let session = try VaultDirectory(url: URL(fileURLWithPath: h.vault)).unlock(password: Secret(utf8: AgentHarness.masterPassword))
        let direct = try Keyshelf(vault: session).searchGenerics("BACKUP")
        session.lock()
        #expect(generics.map(\.account) == ["robot"])
        #expect(generics == direct, "every field as the facade gives it")
        let commands: [[String]] = [["search", "backup"], ["search", "E", "--json"], ["search", "ZOË"], ["search", "home"],
                                    ["search", "wifi", "--json"], ["search", "hunter2"]]
        for command in commands {
            let viaAgent = try h.run(command, withPassword: false)
            let direct = try h.run(command + ["--no-agent"])
            #expect(viaAgent.status == direct.status && viaAgent.stdout == direct.stdout && viaAgent.stderr == direct.stderr,
                    "\(command)\nagent: \(viaAgent)\ndirect: \(direct)")
        }
        #expect(try h.run(["search", "robot"], withPassword: false).stdout == "service:backup-tool\trobot\tlocal\n")
    }

    @Test func addThroughTheAgentReadsScriptedInputInOrder() throws {
        let h = try AgentHarness()
        defer { h.stop() }
        try h.check(h.run(["unlock"]))
        // --password-fd 0: the master password line first (unused with the agent), then the item password.
        let added = try h.run(["add", "example.com", "alice", "--password-fd", "0", "--password-stdin"],
                              stdin: AgentHarness.masterPassword + "\nitem-password\n", withPassword: false)
        #expect(added.status == 0, "\(added)")
        #expect(try password(h, "example.com", "alice") == "item-password\n")
        // Without a terminal an update is declined, with the --yes hint, as without the agent.
        let update = try h.run(["add", "example.com", "alice", "--password-stdin"], stdin: "other\n", withPassword: false)
        #expect(update.status == 4 && update.stderr.contains("--yes"), "\(update)")
        #expect(try h.check(h.run(["add", "example.com", "alice", "--password-stdin", "--yes"], stdin: "other\n", withPassword: false))
            .stderr.contains("updated"))
        #expect(try password(h, "example.com", "alice") == "other\n")
    }

    @Test func anAgentOfAnotherVersionIsStillLocked() throws {
        let h = try AgentHarness()
        defer { h.stop() }
        let location = h.location
        mkdir(location.directory, 0o700)
        // A stand-in for an agent started by an older keyshelf: it answers every
        // request with protocol version 1 and exits only on a signal.
        let script = """
            import os, signal, socket, struct, sys
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGTERM])
            s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.listen(4)
            open(sys.argv[2], "w").close()
            def read(c, n):
                data = b""
                while len(data) < n:
                    more = c.recv(n - len(data))
                    if not more: break
                    data += more
                return data
            while True:
                c, _ = s.accept()
                read(c, struct.unpack("<I", read(c, 4))[0])
                c.sendall(struct.pack("<I", 2) + bytes([1, 2]))
                c.close()
            """
        let ready = h.root + "/ready"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", script, location.socketPath, ready]
        try process.run()
        h.remember(process.processIdentifier)
        #expect(AgentHarness.eventually(10) { FileManager.default.fileExists(atPath: ready) })

        let get = try h.check(h.run(["list"]))
        #expect(get.stderr.contains("protocol version 1"), "\(get)")
        let lock = try h.run(["lock"])
        #expect(lock.status == 0, "\(lock)")
        #expect(AgentHarness.eventually(10) { !process.isRunning }, "SIGTERM should end it")
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal && process.terminationStatus == SIGTERM)
    }

    @Test func aClientThatTricklesBytesHoldsOffNobody() throws {
        let h = try AgentHarness()
        defer { h.stop() }
        try h.check(h.run(["add", "example.com", "alice", "--local", "--password-stdin"], stdin: "s3cret\n"))
        try h.check(h.run(["unlock"]))
        let pid = try #require(try h.agentPID())
        // Announces a 1000-byte request and sends one byte every 0.3 s for 12 s.
        let script = """
            import socket, struct, sys, time
            s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1])
            s.send(struct.pack("<I", 1000))
            try:
                for i in range(40):
                    s.send(b"\\x02"); time.sleep(0.3)
            except OSError:
                pass
            """
        let trickler = Process()
        trickler.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        trickler.arguments = ["-c", script, h.location.socketPath]
        try trickler.run()
        defer { if trickler.isRunning { trickler.terminate() } }
        usleep(300_000)
        let start = Date()
        let get = try h.run(["get", "example.com", "alice"], withPassword: false)
        #expect(get.stdout == "s3cret\n", "\(get)")
        #expect(Date().timeIntervalSince(start) < 4, "answered only after \(Date().timeIntervalSince(start)) s")
        // A signal is acted on while the trickle goes on.
        kill(pid, SIGTERM)
        #expect(AgentHarness.eventually(4) { !AgentHarness.isAlive(pid) }, "SIGTERM should lock the agent within seconds")
    }

    @Test func aMissingSharedFileIsNotedThroughTheAgentToo() throws {
        let h = try AgentHarness()
        defer { h.stop() }
        try h.check(h.run(["add", "example.com", "alice", "--password-stdin"], stdin: "s3cret\n"))
        try h.check(h.run(["unlock"]))
        try FileManager.default.moveItem(atPath: h.vault + "/shared.vault", toPath: h.root + "/aside.vault")
        let viaAgent = try h.run(["list"], withPassword: false)
        let direct = try h.run(["list", "--no-agent"])
        #expect(viaAgent.stderr.contains("shared.vault is missing"), "\(viaAgent)")
        #expect(viaAgent.stderr == direct.stderr && viaAgent.stdout == direct.stdout && viaAgent.status == direct.status)
    }

    @Test func requestsWithNamesTheCLIWouldRefuseAreRejected() throws {
        let good = try ServerName(parsing: "example.com")
        let hostile: [ShelfOperation] = [
            .change(server: ServerPattern(ServerName(host: "EVIL\u{1B}[2J.COM", port: 65535, scheme: "https")), account: "u", password: Secret(utf8: "p"), filter: .shared, newItems: .shared),
            .change(server: ServerPattern(ServerName(host: "example.com", port: 0, scheme: "x\u{1B}]")), account: "u", password: Secret(utf8: "p"), filter: .shared, newItems: .shared),
            .change(server: ServerPattern(ServerName(host: "Example.COM", port: 0, scheme: "https")), account: "u", password: Secret(utf8: "p"), filter: .shared, newItems: .shared),
            .change(server: ServerPattern(good), account: "", password: Secret(utf8: "p"), filter: .shared, newItems: .shared),
            .change(server: ServerPattern(good), account: "u", password: Secret(utf8: ""), filter: .local, newItems: .local),
            .get(server: ServerPattern(ServerName(host: "bad host", port: 0, scheme: "https")), account: nil, filter: .both),
            .delete(server: ServerPattern(good), account: "", filter: .both),
            .deleteGeneric(service: "wifi", account: ""),
            .edit(server: ServerPattern(good), account: "", filter: .both, changes: MetadataChanges(label: "x")),
            .edit(server: ServerPattern(good), account: "u", filter: .both, changes: MetadataChanges(account: "")),
            .edit(server: ServerPattern(good), account: "u", filter: .both,
                  changes: MetadataChanges(server: ServerName(host: "EVIL\u{1B}[2J.COM", port: 0, scheme: "https"))),
            .editGeneric(service: "", account: "u", changes: MetadataChanges(label: "x")),
            .delete(server: ServerPattern(ServerName(host: "EVIL\u{1B}[2J.COM", port: 0, scheme: "https")), account: "u", filter: .both),
        ]
        for operation in hostile {
            var writer = FrameWriter()
            writer.operation(operation, answers: ConsentAnswers())
            var reader = FrameReader(writer.withBody { SecureBytes(copying: $0) })
            #expect(throws: AgentProtocol.MalformedFrame.self, "\(operation)") { _ = try reader.operation(operation.code) }
        }
        for text in ["example.com", "bücher.example:8443", "http://plain.example", "[2001:db8::1]:2222", "10.0.0.1", "plain.example:443"] {
            var writer = FrameWriter()
            writer.operation(.list(server: try ServerPattern(parsing: text), filter: .both), answers: ConsentAnswers())
            var reader = FrameReader(writer.withBody { SecureBytes(copying: $0) })
            #expect(throws: Never.self, "\(text)") { _ = try reader.operation(.list) }
        }
    }

    @Test func operationFramesRoundTripAndCutFramesAreRejected() throws {
        let site = try ServerName(parsing: "bücher.example:8443")
        let operations: [ShelfOperation] = [
            .get(server: ServerPattern(site), account: "zoë", filter: .shared),
            .get(server: ServerPattern(site), account: nil, filter: .both),
            .list(server: nil, filter: .local),
            .list(server: ServerPattern(site), filter: .both),
            .get(server: try ServerPattern(parsing: "plain.example:8080"), account: "anna", filter: .both),
            .list(server: try ServerPattern(parsing: "[2001:db8::1]:443"), filter: .both),
            .change(server: try ServerPattern(parsing: "bücher.example"), account: "anna", password: Secret(utf8: "pw"), filter: .both, newItems: .shared),
            .search(query: "ZOË", filter: .both),
            .change(server: ServerPattern(site), account: "anna", password: Secret(utf8: "pw"), filter: .local, newItems: .local),
            .delete(server: try ServerPattern(parsing: "plain.example"), account: "zoë", filter: .shared),
            .deleteGeneric(service: "Wi-Fi zoë", account: "anna"),
            .edit(server: ServerPattern(site), account: "zoë", filter: .local, changes: MetadataChanges(label: "Work", notes: "a\nb")),
            .edit(server: try ServerPattern(parsing: "plain.example"), account: "anna", filter: .both,
                  changes: MetadataChanges(account: "anna2", server: site, store: .shared)),
            .editGeneric(service: "Wi-Fi zoë", account: "anna", changes: MetadataChanges(label: "", notes: "", account: "zoë")),
        ]
        let answers = ConsentAnswers(approveAll: false, given: [
            (.release(server: site, accounts: ["anna", "zoë"]), .chose(account: "zoë")),
            (.update(server: site, account: "anna"), .approved),
            (.delete(server: site, account: "anna"), .declined),
        ])
        for operation in operations {
            var writer = FrameWriter(capacity: 16)
            writer.operation(operation, answers: answers)
            let whole = writer.withBody { Array($0) }
            var reader = FrameReader(SecureBytes(copying: whole))
            let (decoded, decodedAnswers) = try reader.operation(operation.code)
            #expect(reader.isAtEnd)
            var again = FrameWriter()
            again.operation(decoded, answers: decodedAnswers)
            #expect(again.withBody { Array($0) } == whole, "\(operation)")
            for cut in 0..<whole.count {
                var short = FrameReader(SecureBytes(copying: whole[0..<cut]))
                #expect(throws: AgentProtocol.MalformedFrame.self) { _ = try short.operation(operation.code) }
            }
        }
    }

    @Test func searchRepliesRoundTripWithTheirGenericPasswordsAndCutOnesAreRejected() throws {
        let generic = GenericEntry(id: UUID(), store: .shared, service: "Wi-Fi zoë", account: "home\u{1B}[31m", label: "Router",
                                   comment: "line one\nline two", creationDate: Date(timeIntervalSinceReferenceDate: 786_000_000.123456789),
                                   modificationDate: Date(timeIntervalSinceReferenceDate: 786_000_001.5), accessControl: .userPresence)
        let result = ShelfResult.found(records: [CredentialRecord(server: try ServerName(parsing: "bücher.example:8443"), account: "anna",
                                                                  password: nil, store: .local)],
                                       generics: [generic, GenericEntry(id: UUID(), store: .local, service: "api", account: "ci", label: "",
                                                                        comment: "", creationDate: Date(timeIntervalSince1970: 0),
                                                                        modificationDate: Date(timeIntervalSince1970: 0), accessControl: .none)])
        var writer = FrameWriter()
        writer.result(result)
        let whole = writer.withBody { Array($0) }
        let operation = ShelfOperation.search(query: "x", filter: .both)
        var reader = FrameReader(SecureBytes(copying: whole))
        #expect(try reader.result(of: operation) == result)
        #expect(reader.isAtEnd)
        for cut in 0..<whole.count {
            var short = FrameReader(SecureBytes(copying: whole[0..<cut]))
            #expect(throws: AgentProtocol.MalformedFrame.self) { _ = try short.result(of: operation) }
        }
    }
}
