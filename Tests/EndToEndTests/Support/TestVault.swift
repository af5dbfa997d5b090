import Foundation
import KeyshelfTestSupport

/// A throwaway vault directory with its own master password file, created
/// with the minimum KDF (`KEYSHELF_TEST_KDF=minimum`) so tests stay fast.
/// Each test makes its own; the directory is removed when the value dies.
final class TestVault: @unchecked Sendable {
    static let masterPassword = "correct horse battery staple"

    let root: URL
    let directory: URL
    let passwordFile: URL

    /// Creates the directory and password file; `initialize` also runs `keyshelf init`.
    init(initialize: Bool = true) throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("keyshelf-e2e-\(UUID().uuidString)")
        directory = root.appendingPathComponent("vault")
        passwordFile = root.appendingPathComponent("master")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        try Data((Self.masterPassword + "\n").utf8).write(to: passwordFile)
        if initialize {
            let result = try run(["init"])
            guard result.status == 0 else { throw SetupError(run: result) }
        }
    }

    deinit { try? FileManager.default.removeItem(at: root) }

    /// The environment every run gets: this vault, its password file, the
    /// minimum KDF, and a home of its own so no real vault is ever touched.
    var environment: [String: String] {
        [
            "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin",
            "HOME": root.path,
            "XDG_DATA_HOME": root.appendingPathComponent("data").path,
            "KEYSHELF_VAULT": directory.path,
            "KEYSHELF_PASSWORD_FILE": passwordFile.path,
            "KEYSHELF_TEST_KDF": "minimum",
            "LANG": "C.UTF-8",
        ]
    }

    /// Runs keyshelf against this vault; `changes` edits the environment first.
    func run(_ arguments: [String], stdin: String? = nil, passwordOnFD3: String? = nil,
             changes: (inout [String: String]) -> Void = { _ in }) throws -> Run {
        var env = environment
        changes(&env)
        return try Keyshelf.run(arguments, stdin: stdin.map { Data($0.utf8) }, environment: env, passwordOnFD3: passwordOnFD3)
    }

    /// Adds a credential with `--password-stdin` to one store (`--local` or
    /// `--shared`: a plain `add` changes every store holding the account); throws when that fails.
    @discardableResult
    func add(_ server: String, _ account: String, password: String, local: Bool = false) throws -> Run {
        let result = try run(["add", server, account, "--password-stdin", local ? "--local" : "--shared"], stdin: password + "\n")
        guard result.status == 0 else { throw SetupError(run: result) }
        return result
    }

    /// The vault files and their bytes, to show that a failed command changed nothing.
    func snapshot() throws -> [String: Data] {
        var files: [String: Data] = [:]
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        for name in names where name.hasSuffix(".vault") {
            files[name] = try Data(contentsOf: directory.appendingPathComponent(name))
        }
        return files
    }
}

struct SetupError: Error, CustomStringConvertible {
    let run: Run
    var description: String { "setup command failed: \(run)" }
}
