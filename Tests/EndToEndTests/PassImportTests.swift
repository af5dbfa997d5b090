import Foundation
import Testing

/// `import DIR` of a pass store, decrypted by a real gpg with a throwaway
/// key without passphrase in a temporary GNUPGHOME (issue 17 item 4).
@Suite(.serialized) struct PassImportTests {
    /// A pass store made by `pass insert` with its own GNUPGHOME; the agent is stopped when it dies.
    final class Store: @unchecked Sendable {
        let root: URL
        let gnupgHome: URL
        let directory: URL

        init() throws {
            root = FileManager.default.temporaryDirectory.appendingPathComponent("keyshelf-pass-\(UUID().uuidString)")
            gnupgHome = root.appendingPathComponent("gnupg")
            directory = root.appendingPathComponent("store")
            try FileManager.default.createDirectory(at: gnupgHome, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
            try run("gpg", ["--batch", "--passphrase", "", "--quick-gen-key", "keyshelf test <test@example.invalid>",
                            "default", "default", "never"])
            try run("pass", ["init", "test@example.invalid"])
        }

        deinit {
            _ = try? run("gpgconf", ["--kill", "gpg-agent"])
            try? FileManager.default.removeItem(at: root)
        }

        var environment: [String: String] {
            ["PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin", "GNUPGHOME": gnupgHome.path,
             "PASSWORD_STORE_DIR": directory.path, "HOME": root.path]
        }

        @discardableResult
        func run(_ tool: String, _ arguments: [String], stdin: String? = nil) throws -> Int32 {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = [tool] + arguments
            process.environment = environment
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            let input = Pipe()
            process.standardInput = input
            try process.run()
            if let stdin { input.fileHandleForWriting.write(Data(stdin.utf8)) }
            try input.fileHandleForWriting.close()
            process.waitUntilExit()
            guard process.terminationStatus == 0 else { throw StoreError(tool: tool, status: process.terminationStatus) }
            return process.terminationStatus
        }

        func insert(_ name: String, _ content: String) throws {
            try run("pass", ["insert", "--multiline", name], stdin: content)
        }
    }

    struct StoreError: Error { let tool: String; let status: Int32 }

    @Test func storeEntriesBecomeLoginsWithAccountURLNotesAndTOTP() throws {
        let store = try Store()
        try store.insert("github.com/alice", "gh-pw\notpauth://totp/GitHub:alice?secret=JBSWY3DPEHPK3PXP&issuer=GitHub\nrecovery: in the safe\n")
        try store.insert("Work/mail.example.org", "mail-pw\nlogin: bob\nurl: https://mail.example.org/owa\n")
        try store.insert("Work/intranet", "intra-pw\nuser: carol\nURL: intranet.example:8443\nsecond note line\n")
        try store.insert("notes/wifi", "just-a-key\n")
        let vault = try TestVault()
        let result = try vault.run(["import", store.directory.path]) { env in
            env["GNUPGHOME"] = store.gnupgHome.path
        }
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.contains("pass store export, 4 row(s), into the shared store"), "\(result)")
        #expect(result.stdout.contains("imported 3, updated 0, skipped 0, failed 1"), "\(result)")
        // Entries are numbered in sorted path order: Work/intranet, Work/mail…, github.com/alice, notes/wifi.
        #expect(result.stdout.contains("failed entry 4: on wifi: no URL (server)"), "\(result)")
        #expect(try vault.run(["get", "github.com", "alice", "--yes"]).stdout == "gh-pw\n")
        #expect(try vault.run(["get", "mail.example.org", "bob", "--yes"]).stdout == "mail-pw\n")
        #expect(try vault.run(["get", "intranet.example:8443", "carol", "--yes"]).stdout == "intra-pw\n")
        #expect(try vault.run(["otp", "github.com", "alice", "--at", "59", "--yes"]).status == 0)
        #expect(try vault.run(["search", "in the safe"]).stdout.contains("github.com"))
        let exported = try vault.run(["export", "-", "--format", "bitwarden-json", "--yes"])
        #expect(exported.stdout.contains("\"name\":\"Work\""), "folders from the store's directories: \(exported)")
    }

    @Test func aDirectoryWithoutGpgIdIsNotTakenForAStoreAndDryRunWritesNothing() throws {
        let store = try Store()
        try store.insert("example.com/al", "pw\n")
        let vault = try TestVault()
        let before = try vault.snapshot()
        let dry = try vault.run(["import", store.directory.path, "--dry-run"]) { env in env["GNUPGHOME"] = store.gnupgHome.path }
        #expect(dry.stdout.contains("would import 1,"), "\(dry)")
        #expect(try vault.snapshot() == before)
        let plain = vault.root.appendingPathComponent("plain")
        try FileManager.default.createDirectory(at: plain, withIntermediateDirectories: true)
        let refused = try vault.run(["import", plain.path])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("without .gpg-id"), "\(refused)")
    }

    @Test func aFileGpgCannotDecryptRefusesTheWholeImport() throws {
        let store = try Store()
        try store.insert("example.com/al", "pw\n")
        try Data("not an OpenPGP message".utf8).write(to: store.directory.appendingPathComponent("broken.gpg"))
        let vault = try TestVault()
        let before = try vault.snapshot()
        let result = try vault.run(["import", store.directory.path]) { env in env["GNUPGHOME"] = store.gnupgHome.path }
        #expect(result.status == 1, "\(result)")
        #expect(result.stderr.contains("broken.gpg"), "\(result)")
        #expect(try vault.snapshot() == before)
    }
}
