import Foundation
import Testing

/// `cp local.vault shared.vault` (or the other way): both files share a salt
/// and a password key, so the copy opens; only the header's store byte tells
/// it apart (docs/vault-format.md). Without that check the local items —
/// `…ThisDeviceOnly` ones too — would list as shared (issue 20 item 5).
@Suite struct CopiedVaultFileTests {
    @Test(arguments: [("local.vault", "shared.vault"), ("shared.vault", "local.vault")])
    func aVaultFileCopiedOverTheOtherIsRefused(source: String, target: String) throws {
        let vault = try TestVault()
        try vault.add("example.com", "alice", password: "local", local: true)
        try vault.add("example.com", "bob", password: "shared")
        try FileManager.default.removeItem(at: vault.directory.appendingPathComponent(target))
        try FileManager.default.copyItem(at: vault.directory.appendingPathComponent(source),
                                         to: vault.directory.appendingPathComponent(target))
        let before = try vault.snapshot()
        for arguments in [["list"], ["add", "example.com", "carol", "--password-stdin"]] {
            let result = try vault.run(arguments, stdin: "new\n")
            #expect(result.status == 7, "\(arguments): \(result)")
            #expect(result.stderr.contains(target) && result.stderr.contains("holds another store than its name says"), "\(result)")
            #expect(result.stdout.isEmpty)
            #expect(try vault.snapshot() == before, "\(arguments) changed a vault file")
        }
    }
}
