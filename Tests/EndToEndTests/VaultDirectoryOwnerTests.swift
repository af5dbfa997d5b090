import Foundation
import Glibc
import KeyshelfTestSupport
import Testing

/// `keyshelf init` into an existing directory (docs/vault-format.md, "The
/// vault directory"): one of the user's own is taken and made private; one
/// of another user is refused whatever its mode, naming its owner, with
/// nothing created and nothing changed (issue 20 item 4).
@Suite struct VaultDirectoryOwnerTests {
    static func status(_ path: String) -> stat {
        var s = stat()
        #expect(stat(path, &s) == 0)
        return s
    }

    @Test(.needsRoot("chown of the vault directory to uid 65534"), arguments: [mode_t(0o777), 0o750, 0o700])
    func initRefusesAnotherUsersDirectory(mode: mode_t) throws {
        let vault = try TestVault(initialize: false)
        let path = vault.directory.path
        #expect(mkdir(path, 0o700) == 0)
        #expect(chmod(path, mode) == 0)
        #expect(chown(path, 65534, 65534) == 0)
        let result = try vault.run(["init"])
        #expect(result.status == 1, "\(result)")
        let name = getpwuid(65534).map { " (\(String(cString: $0.pointee.pw_name)))" } ?? ""
        #expect(result.stderr.contains("belongs to uid 65534\(name), not to you"), "\(result)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: path).isEmpty, "init created files in another user's directory")
        let after = Self.status(path)
        #expect(after.st_mode & 0o7777 == mode, "the mode was changed")
        #expect(after.st_uid == 65534 && after.st_gid == 65534, "the owner was changed")
    }

    @Test func initTakesTheUsersOwnOpenDirectoryAndMakesItPrivate() throws {
        let vault = try TestVault(initialize: false)
        let path = vault.directory.path
        #expect(mkdir(path, 0o700) == 0)
        #expect(chmod(path, 0o775) == 0)
        let result = try vault.run(["init"])
        #expect(result.status == 0, "\(result)")
        #expect(Self.status(path).st_mode & 0o7777 == 0o700)
        #expect(Set(try vault.snapshot().keys) == ["local.vault", "shared.vault"])
    }
}
