import Foundation
import KeyshelfCrypto
import KeyshelfVault
import Testing

/// Passwords that are not UTF-8 text: refused on the way in, and legacy ones
/// never turned into invalid JSON or an export that cannot be imported back
/// (docs/cli.md "Output", docs/import.md "Export").
@Suite struct PasswordBytesTests {
    @Test(arguments: [[0xFF, 0xFE, 0x41, 0x0A], [0x61, 0x00, 0x62, 0x0A]] as [[UInt8]])
    func addAndUpdateRefuseAPasswordThatIsNotText(bytes: [UInt8]) throws {
        let vault = try TestVault()
        let before = try vault.snapshot()
        let add = try Keyshelf.run(["add", "bin.example", "u", "--password-stdin"], stdin: Data(bytes), environment: vault.environment)
        #expect(add.status == 2, "\(add)")
        #expect(add.stderr.contains("must be UTF-8 text without NUL"), "\(add)")
        #expect(add.stderr.contains("errSecParam -50"), "\(add)")
        #expect(try vault.snapshot() == before)

        try vault.add("bin.example", "u", password: "good")
        let update = try Keyshelf.run(["add", "bin.example", "u", "--password-stdin", "--yes"], stdin: Data(bytes),
                                      environment: vault.environment)
        #expect(update.status == 2, "\(update)")
        #expect(update.stderr.contains("must be UTF-8 text without NUL"), "\(update)")
        #expect(try vault.run(["get", "bin.example", "u", "--yes"]).stdout == "good\n")
    }

    /// A vault holding `bytes` as the shared password of `u` on bin.example,
    /// written past the add rule, as an older keyshelf could have saved it.
    private func legacyVault(_ bytes: [UInt8]) throws -> TestVault {
        let vault = try TestVault()
        try vault.add("ok.example", "u", password: "fine")
        try vault.saveLegacy(Item(account: "u", server: "bin.example", synchronizable: true, password: Secret(SecureBytes(copying: bytes))))
        return vault
    }

    @Test func getJSONOfALegacyPasswordFailsWithoutPrintingInvalidJSON() throws {
        let vault = try legacyVault([0xFF, 0xFE, 0x41])
        let json = try vault.run(["get", "bin.example", "u", "--json", "--yes"])
        #expect(json.status == 1, "\(json)")
        #expect(json.stdoutData.isEmpty)
        #expect(json.stderr.contains("is not UTF-8 text and cannot be printed as JSON"), "\(json)")
        let plain = try vault.run(["get", "bin.example", "u", "--yes"])
        #expect(plain.stdoutData == Data([0xFF, 0xFE, 0x41, 0x0A]))
        // Listing never carries passwords, so it stays available and valid.
        #expect(try vault.run(["list", "--json"]).json() is [Any])
    }

    @Test func exportSkipsAndCountsALegacyPasswordSoTheFileImportsBack() throws {
        let vault = try legacyVault([0xFF, 0xFE, 0x41])
        let out = vault.root.appendingPathComponent("export.csv").path
        let exported = try vault.run(["export", out, "--yes"])
        #expect(exported.status == 0, "\(exported)")
        #expect(exported.stderr.contains("exported 1 password(s)"), "\(exported)")
        #expect(exported.stderr.contains("1 saved password(s) that are not UTF-8 text without NUL bytes were not exported"), "\(exported)")

        let fresh = try TestVault()
        let back = try fresh.run(["import", out])
        #expect(back.status == 0, "\(back)")
        #expect(back.stdout.contains("imported 1, updated 0, skipped 0, failed 0"), "\(back)")
    }

    @Test func exportWarningSaysNotToOpenTheFileInASpreadsheet() throws {
        let vault = try TestVault()
        try vault.add("formula.example", "u", password: "=HYPERLINK(\"x\")")
        let out = vault.root.appendingPathComponent("export.csv").path
        let exported = try vault.run(["export", out, "--yes"])
        #expect(exported.status == 0, "\(exported)")
        #expect(exported.stderr.contains("for importing into a password manager"), "\(exported)")
        #expect(exported.stderr.contains("do not open it in a spreadsheet"), "\(exported)")
        // The value is written exactly: changing it would change the password.
        let text = try String(contentsOfFile: out, encoding: .utf8)
        #expect(text.contains("\"=HYPERLINK(\"\"x\"\")\""))
    }
}
