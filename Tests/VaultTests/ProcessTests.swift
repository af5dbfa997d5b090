import Foundation
import KeyshelfTestSupport
import Testing
import KeyshelfCrypto
@testable import KeyshelfVault

/// The `vault-stress` helper built next to this test bundle.
func vaultStressURL() throws -> URL {
    guard let url = BuiltProduct.named("vault-stress") else {
        throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: "vault-stress (swift build --build-tests)"])
    }
    return url
}

/// Starts `vault-stress` with `arguments`, the test password on its standard input;
/// as uid/gid 65534 (through `setpriv`) running the copy `nobodysCopy` when given
/// (the build directory may be closed to that user).
func startStress(_ arguments: [String], output: Pipe? = nil, nobodysCopy: String? = nil) throws -> Process {
    let process = Process()
    if let nobodysCopy {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        process.arguments = ["--reuid=65534", "--regid=65534", "--clear-groups", nobodysCopy] + arguments
    } else {
        process.executableURL = try vaultStressURL()
        process.arguments = arguments
    }
    let input = Pipe()
    process.standardInput = input
    if let output { process.standardOutput = output }
    try process.run()
    input.fileHandleForWriting.write(Data("correct horse battery staple\n".utf8))
    try input.fileHandleForWriting.close()
    return process
}

@Suite struct ProcessTests {
    @Test func twoProcessesSavingConcurrentlyLoseNothing() throws {
        let vault = TemporaryVault()
        defer { vault.cleanUp() }
        _ = try vault.directory.create(password: testPassword, limits: .minimum)
        let perProcess = 40
        let writers = try ["a", "b"].map { try startStress(["add", vault.path, String(perProcess), $0]) }
        for writer in writers {
            writer.waitUntilExit()
            #expect(writer.terminationStatus == 0)
        }
        let accounts = Set(try vault.directory.unlock(password: testPassword).contents().shared.map(\.account))
        let expected = Set(["a", "b"].flatMap { tag in (0..<perProcess).map { "\(tag)-\($0)" } })
        #expect(accounts == expected)
    }

    /// Reads one line (a generation number) from `handle`; nil at end of file.
    static func readGeneration(_ handle: FileHandle) -> Int? {
        var line = [UInt8]()
        while true {
            let byte = handle.readData(ofLength: 1)
            guard let b = byte.first else { return nil }
            if b == UInt8(ascii: "\n") { return Int(String(decoding: line, as: UTF8.self)) }
            line.append(b)
        }
    }

    /// Starts `vault-stress arguments`, waits until it is in its save loop
    /// (its first printed number), then kills it with SIGKILL at a random moment.
    /// - Returns: the child's standard output, and the first number it printed.
    static func killAtARandomMoment(_ arguments: [String], round: Int, using generator: inout SystemRandomNumberGenerator) throws -> (FileHandle, Int?) {
        let output = Pipe()
        let child = try startStress(arguments, output: output)
        let first = readGeneration(output.fileHandleForReading)
        #expect(first != nil, "round \(round): the child saved nothing")
        usleep(UInt32.random(in: 0...3000, using: &generator))
        kill(child.processIdentifier, SIGKILL)
        child.waitUntilExit()
        #expect(child.terminationReason == .uncaughtSignal, "round \(round): the child exited on its own")
        return (output.fileHandleForReading, first)
    }

    @Test func killingAWriterAtRandomMomentsNeverLosesTheVault() throws {
        let vault = TemporaryVault()
        defer { vault.cleanUp() }
        let session = try vault.directory.create(password: testPassword, limits: .minimum)
        try session.modify { contents in
            for store in Store.allCases {
                contents[store] = (0..<4).map {
                    var item = sampleItem($0 + (store == .local ? 0 : 10))
                    item.label = "0"
                    item.password = Secret(utf8: "secret-0")
                    return item
                }
            }
        }
        var lastSeen = 0
        var generator = SystemRandomNumberGenerator()
        for round in 0..<200 {
            let (output, _) = try Self.killAtARandomMoment(["churn", vault.path], round: round, using: &generator)
            let contents = try vault.directory.unlock(password: testPassword).contents()
            var generations = [Store: Int]()
            for store in Store.allCases {
                let items = contents[store]
                let labels = Set(items.map(\.label))
                let passwords = Set(items.map { $0.password?.unsafeString() ?? "" })
                #expect(items.count == 4 && labels.count == 1 && passwords == ["secret-\(labels.first ?? "")"],
                        "round \(round): \(store) is neither the old nor the new version")
                generations[store] = Int(labels.first ?? "") ?? -1
            }
            // shared.vault is saved before local.vault within one generation.
            let shared = generations[.shared] ?? -1, local = generations[.local] ?? -1
            #expect(shared >= lastSeen && (local == shared || local == shared - 1), "round \(round): shared \(shared), local \(local), last \(lastSeen)")
            lastSeen = shared
            try? output.close()
        }
        #expect(lastSeen >= 200)
    }

    /// Appends write the appendix, then the header that announces it: a kill
    /// at any moment leaves a file that opens, holding every item whose save
    /// returned (appendices, and every 65th add a whole-file save).
    @Test func killingAnAppendingWriterNeverLosesAnAcknowledgedItem() throws {
        let vault = TemporaryVault()
        defer { vault.cleanUp() }
        _ = try vault.directory.create(password: testPassword, limits: .minimum)
        var acknowledged = 0
        var generator = SystemRandomNumberGenerator()
        for round in 0..<100 {
            var (output, last) = try Self.killAtARandomMoment(["grow", vault.path], round: round, using: &generator)
            // Counts the child printed before it died: each one's save had returned.
            while let count = Self.readGeneration(output) { last = count }
            acknowledged = max(acknowledged, last ?? 0)
            try? output.close()

            let accounts = try vault.directory.unlock(password: testPassword).contents().shared.map(\.account)
            #expect(accounts == (0..<accounts.count).map(String.init), "round \(round): items missing or out of order")
            #expect(accounts.count >= acknowledged, "round \(round): \(accounts.count) items, \(acknowledged) acknowledged")
        }
        #expect(acknowledged > 100)
    }

    /// A vault file its owner may not write in place (mode 0400 in a
    /// writable directory) cannot take an appendix; the add replaces the
    /// file instead, as an edit does. Run as uid 65534 when the suite runs
    /// as root, which may write any file.
    @Test func anAddToAFileThatMayNotBeWrittenInPlaceReplacesIt() throws {
        let vault = TemporaryVault()
        defer { vault.cleanUp() }
        _ = try vault.directory.create(password: testPassword, limits: .minimum)
        var nobodysCopy: String?
        if getuid() == 0 {
            let copy = vault.path + "/vault-stress"
            try FileManager.default.copyItem(atPath: try vaultStressURL().path, toPath: copy)
            for path in [vault.path, vault.path + "/keyshelf.lock", vault.file(.local), vault.file(.shared), copy] {
                #expect(chown(path, 65534, 65534) == 0)
            }
            nobodysCopy = copy
        }
        #expect(chmod(vault.file(.shared), 0o400) == 0)
        let writer = try startStress(["add", vault.path, "1", "ro"], nobodysCopy: nobodysCopy)
        writer.waitUntilExit()
        #expect(writer.terminationStatus == 0)
        #expect(try vault.directory.unlock(password: testPassword).contents().shared.map(\.account) == ["ro-0"])
    }
}
