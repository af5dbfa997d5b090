import Foundation
import Testing

/// `keyshelf import db.kdbx --source-password-fd 3` through the real binary (issue 17 item 4).
@Suite struct KDBXImportCommandTests {
    /// The fixture written by scripts/make-kdbx-fixtures (kept with the TransferTests fixtures).
    private func fixture(_ name: String) -> String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("TransferTests/Fixtures/\(name)").path
    }

    @Test func databaseIsRecognisedByContentAndReadWithThePasswordOnADescriptor() throws {
        let vault = try TestVault()
        let result = try vault.run(["import", fixture("kdbx4-argon2id-chacha20.kdbx"), "--source-password-fd", "3"],
                                   passwordOnFD3: "kdbx-pass")
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.contains("KeePass database export, 4 row(s), into the shared store"), "\(result)")
        #expect(result.stdout.contains("imported 3, updated 0, skipped 1, failed 1"), "\(result)")
        #expect(try vault.run(["get", "github.com", "octocat", "--yes"]).stdout == "p\"w<&>é\n")
        #expect(try vault.run(["otp", "totp.example", "dave", "--at", "59", "--yes"]).stdout.count == 9, "8 digits and a newline")
    }

    @Test func wrongPasswordChangesNothingAndNoTerminalIsAUsageError() throws {
        let vault = try TestVault()
        let before = try vault.snapshot()
        let wrong = try vault.run(["import", fixture("kdbx4-argon2d-aes.kdbx"), "--source-password-fd", "3"], passwordOnFD3: "nope")
        #expect(wrong.status == 1, "\(wrong)")
        #expect(wrong.stderr.contains("wrong password for this database, or it also needs a key file"), "\(wrong)")
        let unasked = try vault.run(["import", fixture("kdbx4-argon2d-aes.kdbx")])
        #expect(unasked.status == 2, "\(unasked)")
        #expect(unasked.stderr.contains("--source-password-fd N"), "\(unasked)")
        #expect(try vault.snapshot() == before)
    }
}
