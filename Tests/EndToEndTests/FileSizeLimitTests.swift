import Foundation
import KeyshelfTestSupport
import Testing

/// A file size limit (`RLIMIT_FSIZE`, `ulimit -f`) below the vault's size:
/// keyshelf ignores SIGXFSZ, so the write fails with EFBIG, the command
/// says so and exits 1, the vault is unchanged and no temporary file is
/// left (issue 11, item 21). The limit is set for the child by `prlimit`.
@Suite struct FileSizeLimitTests {
    @Test func aSaveAboveTheFileSizeLimitFailsWithAClearMessageAndLeavesNoTemporaryFile() throws {
        let vault = try TestVault()
        for n in 0..<6 { try vault.add("site\(n).example", "user\(n)@example.com", password: "password-\(n)-long-enough") }
        let before = try vault.snapshot()
        // Above a header (144 bytes), below any vault file: a whole-file save and an appendix both cross it.
        let limit = 160
        #expect((before["shared.vault"]?.count ?? 0) > 500)
        for arguments in [["rm", "site0.example", "user0@example.com", "--yes"],
                          ["add", "new.example", "someone", "--password-stdin"]] {
            // The test runner may ignore SIGXFSZ itself, which a child inherits: `env` resets it to the default first.
            let result = try Program.runDetached("/usr/bin/env", ["--default-signal=XFSZ", "/usr/bin/prlimit", "--fsize=\(limit)", Keyshelf.binary.path] + arguments,
                                                  stdin: Data("another-password\n".utf8), environment: vault.environment)
            #expect(result.status == 1, "\(arguments[0]): \(result)")
            #expect(result.stderr.contains(String(cString: strerror(EFBIG))), "\(arguments[0]): \(result.stderr)")
            #expect(result.stderr.contains("ulimit -f"), "\(arguments[0]): \(result.stderr)")
            #expect(try vault.snapshot() == before, "\(arguments[0])")
            let names = try FileManager.default.contentsOfDirectory(atPath: vault.directory.path)
            #expect(!names.contains { $0.hasSuffix(".tmp") }, "\(arguments[0]): \(names)")
        }
    }
}
