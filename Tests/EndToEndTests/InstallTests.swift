import Foundation
import KeyshelfTestSupport
import Testing

/// `scripts/install` (issue 17 item 1): the layout under a prefix, DESTDIR,
/// and an installed binary that runs from anywhere without the checkout:
/// no build path inside it (nor in the keyshelf-full installed beside it), themes found beside it.
@Suite struct InstallTests {
    static let checkout = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static let files = [
        "bin/keyshelf", "bin/keyshelf-full", "share/keyshelf/themes/solarized.theme", "share/keyshelf/themes/dark.theme",
        "share/man/man1/keyshelf.1", "share/bash-completion/completions/keyshelf",
        "share/zsh/site-functions/_keyshelf", "share/fish/vendor_completions.d/keyshelf.fish",
    ]

    /// Installs the binary under test (`--binary`: no second build) into a new temporary prefix.
    static func install(destdir: String? = nil, prefix: String) throws -> Run {
        var environment = ["PATH": "/usr/bin:/bin", "HOME": "/nonexistent", "LANG": "C.UTF-8"]
        environment["DESTDIR"] = destdir
        return try Program.run(checkout.appendingPathComponent("scripts/install").path,
                                       ["--prefix", prefix, "--binary", Keyshelf.binary.path], environment: environment)
    }

    static func temporaryFolder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("keyshelf-install-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    @Test func installsTheLayoutAndTheInstalledBinaryRunsWithoutTheCheckout() throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let prefix = folder.appendingPathComponent("prefix")
        let result = try Self.install(prefix: prefix.path)
        #expect(result.status == 0, "\(result)")
        for file in Self.files {
            #expect(FileManager.default.fileExists(atPath: prefix.appendingPathComponent(file).path), "missing \(file)")
        }
        let binary = prefix.appendingPathComponent("bin/keyshelf")
        // The thin client and the full program it runs from its own directory.
        for file in ["bin/keyshelf", "bin/keyshelf-full"] {
            let bytes = try Data(contentsOf: prefix.appendingPathComponent(file))
            #expect(bytes.range(of: Data(Self.checkout.path.utf8)) == nil, "the installed \(file) holds the checkout's path")
        }

        // From another directory, with a bare environment: the themes come from the prefix.
        let environment = ["PATH": "/usr/bin:/bin", "HOME": folder.path, "LANG": "C.UTF-8",
                           "XDG_CONFIG_HOME": folder.appendingPathComponent("config").path]
        func themes() throws -> [String] {
            try Program.run(binary.path, ["__complete", "themes"], environment: environment,
                                    currentDirectory: URL(fileURLWithPath: "/")).lines
        }
        #expect(try themes().contains("solarized"))
        try FileManager.default.moveItem(at: prefix.appendingPathComponent("share/keyshelf"), to: folder.appendingPathComponent("moved"))
        #expect(try themes() == ["dark", "monochrome"], "themes found elsewhere than under the prefix")

        for (shell, file) in [("bash", "share/bash-completion/completions/keyshelf"), ("zsh", "share/zsh/site-functions/_keyshelf"),
                              ("fish", "share/fish/vendor_completions.d/keyshelf.fish"), ("man", "share/man/man1/keyshelf.1")] {
            let printed = try Program.run(binary.path, ["completion", shell], environment: environment)
            #expect(try Data(contentsOf: prefix.appendingPathComponent(file)) == printed.stdoutData, "\(file)")
        }
    }

    @Test func destdirStagesUnderThePrefix() throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let stage = folder.appendingPathComponent("stage")
        let result = try Self.install(destdir: stage.path, prefix: "/usr/local")
        #expect(result.status == 0, "\(result)")
        for file in Self.files {
            #expect(FileManager.default.fileExists(atPath: stage.appendingPathComponent("usr/local/" + file).path), "missing \(file)")
        }
    }

    /// `man -l` renders the generated page without a troff warning, with
    /// every command and the exit codes, in a UTF-8 locale and in plain C
    /// (where "…" in a help text used to warn "can't find special character").
    @Test(arguments: ["C.UTF-8", "C"]) func theManPageRenders(locale: String) throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let page = folder.appendingPathComponent("keyshelf.1")
        let generated = try Keyshelf.run(["completion", "man"], environment: ["PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"])
        try generated.stdoutData.write(to: page)
        let result = try Program.run("/usr/bin/man", ["--warnings", "-l", page.path],
                                             environment: ["PATH": "/usr/bin:/bin", "LANG": locale, "MANWIDTH": "100", "MANPAGER": "cat", "HOME": folder.path])
        #expect(result.status == 0, "\(result)")
        #expect(result.stderr.isEmpty, "\(result.stderr)")
        for word in ["keyshelf get SERVER [ACCOUNT]", "completion SHELL", "EXIT STATUS", "status: the vault is locked", "NO_COLOR"] {
            #expect(result.stdout.contains(word), "missing \(word)")
        }
    }
}
