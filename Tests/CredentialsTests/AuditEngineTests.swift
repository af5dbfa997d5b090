import Foundation
import KeyshelfCrypto
import KeyshelfVault
import Testing
@testable import KeyshelfCredentials

/// A HIBP list of `count` generated lines plus `extra` passwords, sorted by hash,
/// written as the official downloader does (CR LF); returns its path.
func writePwnedList(count: Int, extra: [(String, Int)] = [], sorted: Bool = true, in directory: URL) throws -> String {
    var lines = (0..<count).map { hexSHA1("generated-\($0)") + ":\($0 % 97 + 1)" }
    lines += extra.map { hexSHA1($0.0) + ":\($0.1)" }
    lines.sort()
    if !sorted { lines.swapAt(lines.count / 2, lines.count / 2 + 1) }
    let url = directory.appendingPathComponent("pwned-\(UUID().uuidString).txt")
    try Data(lines.map { $0 + "\r\n" }.joined().utf8).write(to: url)
    return url.path
}

func hexSHA1(_ text: String) -> String {
    String(decoding: PwnedHex.upperHex(Array(text.utf8).withUnsafeBytes { SHA1.digest($0) }), as: UTF8.self)
}

private func shelf(_ items: VaultContents) throws -> Keyshelf {
    try Keyshelf(vault: MemoryVault(items: items))
}

private func problems(_ report: AuditReport, _ account: String) -> [AuditProblem] {
    report.findings.first { $0.entry.account == account }?.problems ?? []
}

@Suite struct AuditEngineTests {
    let directory = FileManager.default.temporaryDirectory

    @Test func sha1MatchesTheKnownVector() {
        #expect(hexSHA1("abc") == "A9993E364706816ABA3E25717850C26C9CD0D89D")
    }

    @Test func userInputsMakeAPasswordWeak() {
        let alice = Secret(utf8: "alice2024")
        let withInput = PasswordStrength.entropyBits(of: alice, userInputs: ["alice"])
        let without = PasswordStrength.entropyBits(of: alice, userInputs: [])
        #expect(withInput < without)
        #expect(abs(withInput - 8.2) < 0.1)
        #expect(abs(PasswordStrength.entropyBits(of: Secret(utf8: "correcthorsebatterystaple"), userInputs: []) - 47.4) < 0.1)
        let inputs = PasswordStrength.userInputs(account: "alice@mail.example", server: server("shop.example.com"), label: "Shop")
        #expect(inputs.contains("alice") && inputs.contains("shop") && inputs.contains("example"))
    }

    @Test func generatedPasswordsAreNeverWeak() throws {
        let items = (0..<300).map { Item(account: "user\($0)", server: "site\($0).example", password: PasswordGenerator.generate()) }
        let report = try shelf(VaultContents(local: items)).audit(with: AuditEngine())
        #expect(report.findings.isEmpty)
        #expect(report.auditedCount == 300)
    }

    @Test func weakReusedAndInsecureAreFound() throws {
        let items = VaultContents(
            local: [internetItem("example.com", "alice", "alice2024"), internetItem("other.example", "bob", "Qm7-xKp-R4t-Wz9")],
            shared: [internetItem("example.org", "carol", "Qm7-xKp-R4t-Wz9", synchronizable: true),
                     internetItem("example.com", "alice", "alice2024", synchronizable: true),
                     Item(account: "dave", server: "plain.example", protocol: "http", synchronizable: true,
                          password: Secret(utf8: "Yt4-pqR-8Mn-Kd3"))])
        let report = try shelf(items).audit(with: AuditEngine())
        // alice keeps one password in both stores: one account, so not reused.
        #expect(problems(report, "alice") == [.weak])
        #expect(problems(report, "bob") == [.reused])
        #expect(problems(report, "carol") == [.reused])
        #expect(problems(report, "dave") == [.insecure])
        #expect(report.findings.allSatisfy { f in f.reasons.values.allSatisfy { !$0.contains("alice2024") && !$0.contains("Qm7") } })
    }

    @Test func aLargeGroupSharingOnePasswordNamesThreeOthersAndCountsTheRest() throws {
        let password = "Qm7-xKp-R4t-Wz9"
        let local = (0..<2000).map { internetItem("site\($0).example", "user\($0)", password) }
        // user0 also in the shared store: the same account, counted once.
        let shared = [internetItem("site0.example", "user0", password, synchronizable: true)]
        let subjects = try shelf(VaultContents(local: local, shared: shared)).auditSubjects()
        let reuse = AuditEngine.reuse(subjects)
        #expect(reuse.count == subjects.count)
        var seen = Set<String>()
        let listed = subjects.map(\.entry.account).filter { seen.insert($0).inserted }
        for (i, others) in reuse {
            let me = subjects[i].entry.account
            #expect(others.count == 1999)
            #expect(others.shown.map { subjects[$0].entry.account } == Array(listed.filter { $0 != me }.prefix(3)), "\(me)")
        }
        let report = try AuditEngine().audit(subjects)
        #expect(report.findings.count == subjects.count)
        #expect(report.findings.allSatisfy { $0.problems == [.reused] && $0.reasons[.reused]!.hasSuffix(" and 1996 more") })
    }

    /// The TUI's first open pairs the subjects on the background batch: they
    /// are those of the snapshot when asked, whatever changes afterwards.
    @Test func deferredSubjectsAreTheSubjectsOfTheSnapshotWhenAsked() throws {
        let items = VaultContents(local: [internetItem("b.example", "bob", "pw-bob"), internetItem("a.example", "alice", "pw-alice")],
                                  shared: [internetItem("a.example", "carol", "pw-carol", synchronizable: true)])
        let keyshelf = try Keyshelf(vault: MemoryVault(items: items), consent: ApproveAll())
        let now = keyshelf.auditSubjects()
        let later = keyshelf.deferredAuditSubjects()
        _ = try keyshelf.add(server: ServerName(parsing: "c.example"), account: "dave", password: Secret(utf8: "pw-dave"), to: .local)
        let made = later()
        #expect(made.map(\.entry) == now.map(\.entry))
        #expect(made.map(\.entry.account) == ["alice", "carol", "bob"])
        #expect(made.map { $0.password?.unsafeString() } == ["pw-alice", "pw-carol", "pw-bob"])
        #expect(keyshelf.auditSubjects().count == 4)
    }

    @Test func reuseComparesKeyedDigestsUnderAFreshKey() {
        let a = Secret(utf8: "same password")
        let key1 = Random.secureBytes(GenericHash.keyByteCount), key2 = Random.secureBytes(GenericHash.keyByteCount)
        let d1 = a.withUnsafeBytes { GenericHash.hash($0, key: key1) }
        #expect(d1 == a.withUnsafeBytes { GenericHash.hash($0, key: key1) })
        #expect(d1 != a.withUnsafeBytes { GenericHash.hash($0, key: key2) })
        #expect(d1 != a.withUnsafeBytes { GenericHash.hash($0) })
    }

    @Test func compromisedComesFromTheList() throws {
        let path = try writePwnedList(count: 2000, extra: [("hunter2hunter2hunter2", 17)], in: directory)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let items = VaultContents(local: [internetItem("a.example", "erin", "hunter2hunter2hunter2"),
                                          internetItem("b.example", "frank", "Hv8-Mnq-Tz3-Kp5")])
        let report = try shelf(items).audit(with: AuditEngine(pwned: try PwnedPasswordsFile(path: path)))
        #expect(problems(report, "erin").contains(.compromised))
        #expect(report.findings.first { $0.entry.account == "erin" }?.reasons[.compromised]?.contains("17 times") == true)
        #expect(problems(report, "frank") == [])
    }

    @Test func everyLineOfTheListIsFoundAndOthersAreNot() throws {
        let path = try writePwnedList(count: 3000, in: directory)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let list = try PwnedPasswordsFile(path: path)
        for i in stride(from: 0, to: 3000, by: 7) {
            #expect(try list.breachCount(ofHex: Array(hexSHA1("generated-\(i)").utf8)) == i % 97 + 1)
        }
        #expect(try list.breachCount(ofHex: Array(hexSHA1("not in the list").utf8)) == 0)
        #expect(try list.breachCount(ofHex: Array(String(repeating: "0", count: 40).utf8)) == 0)
        #expect(try list.breachCount(ofHex: Array(String(repeating: "F", count: 40).utf8)) == 0)
    }

    /// The search is logarithmic: reads per lookup grow by a constant when the file grows 32 times.
    @Test func lookupsReadLogarithmicallyMany() throws {
        func readsPerLookup(_ lines: Int) throws -> (reads: Double, bytes: Double) {
            let path = try writePwnedList(count: lines, in: directory)
            defer { try? FileManager.default.removeItem(atPath: path) }
            let list = try PwnedPasswordsFile(path: path)
            let (reads, bytes) = (list.readCount, list.bytesRead)
            let lookups = 200
            for i in 0..<lookups { _ = try list.breachCount(ofHex: Array(hexSHA1("absent-\(i)").utf8)) }
            return (Double(list.readCount - reads) / Double(lookups), Double(list.bytesRead - bytes) / Double(lookups))
        }
        let small = try readsPerLookup(4_000), large = try readsPerLookup(128_000)
        // The file is 6.4 MB: a scan would read megabytes per lookup; a search, one window and its probes.
        #expect(large.bytes < 16 * 1024)
        // log2(128 000 × 50 bytes / 4096) ≈ 12 probes at most per lookup; a scan would read thousands.
        #expect(large.reads <= 13)
        #expect(large.reads - small.reads <= 7)
    }

    @Test func anUnsortedListIsRefused() throws {
        let path = try writePwnedList(count: 200, sorted: false, in: directory)
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(throws: AuditError(.unsortedList, "")) { try PwnedPasswordsFile(path: path) }
    }

    @Test func unsortedLinesMetBySearchesAreRefused() throws {
        // Sorted start (the opening sample), one line far out of place later.
        var lines = (0..<20_000).map { hexSHA1("generated-\($0)") + ":1" }.sorted()
        lines.swapAt(15_000, 19_000)
        let url = directory.appendingPathComponent("pwned-\(UUID().uuidString).txt")
        try Data(lines.map { $0 + "\n" }.joined().utf8).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        let list = try PwnedPasswordsFile(path: url.path)
        #expect(throws: AuditError(.unsortedList, "")) {
            for i in 0..<2000 { _ = try list.breachCount(ofHex: Array(hexSHA1("absent-\(i)").utf8)) }
        }
    }

    @Test func compressedAndForeignFilesAreRefused() throws {
        let gz = directory.appendingPathComponent("pwned-\(UUID().uuidString).txt.gz")
        try Data([0x1F, 0x8B, 0x08, 0, 0, 0, 0, 0]).write(to: gz)
        let sevenZip = directory.appendingPathComponent("pwned-\(UUID().uuidString).7z")
        try Data([0x37, 0x7A, 0xBC, 0xAF, 0x27, 0x1C, 0, 4]).write(to: sevenZip)
        let ntlm = directory.appendingPathComponent("pwned-\(UUID().uuidString).txt")
        try Data("8846F7EAEE8FB117AD06BDD830B7586C:3\n".utf8).write(to: ntlm)
        defer { [gz, sevenZip, ntlm].forEach { try? FileManager.default.removeItem(at: $0) } }
        #expect(throws: AuditError(.compressedList, "")) { try PwnedPasswordsFile(path: gz.path) }
        #expect(throws: AuditError(.compressedList, "")) { try PwnedPasswordsFile(path: sevenZip.path) }
        #expect(throws: AuditError(.unreadableList, "")) { try PwnedPasswordsFile(path: ntlm.path) }
        #expect(throws: AuditError(.unreadableList, "")) { try PwnedPasswordsFile(path: "/nonexistent/pwned.txt") }
    }

    @Test func ignoredFindingsAreStoredAndHidden() throws {
        let vault = MemoryVault(items: VaultContents(local: [internetItem("example.com", "alice", "alice2024")]))
        let keyshelf = try Keyshelf(vault: vault)
        let entry = try #require(keyshelf.entries().first)
        try keyshelf.setIgnored(.weak, true, for: entry)
        #expect(try vault.loadItems().local[0].ignoredFindings == .weak)
        let report = try Keyshelf(vault: vault).audit(with: AuditEngine())
        #expect(report.findings.isEmpty)
        #expect(report.ignoredCount == 1)
        try Keyshelf(vault: vault).setIgnored(.weak, false, for: try #require(Keyshelf(vault: vault).entries().first))
        #expect(try Keyshelf(vault: vault).audit(with: AuditEngine()).findings.count == 1)
    }
}
