import Foundation
import KeyshelfTestSupport

/// A throwaway vault (`TemporaryVault` of KeyshelfTestSupport: its own
/// directory, master password file and home, the minimum KDF) with the
/// end-to-end tests' helpers. Each test makes its own; the directory is
/// removed when the value dies.
final class TestVault: @unchecked Sendable {
    static let masterPassword = TemporaryVault.masterPassword

    private let vault: TemporaryVault
    var root: URL { vault.root }
    var directory: URL { vault.directory }
    var passwordFile: URL { vault.passwordFile }

    /// Creates the directory and password file; `initialize` also runs `keyshelf init`.
    init(initialize: Bool = true) throws {
        vault = try TemporaryVault(initialize: initialize)
    }

    /// The environment every run gets: `TemporaryVault.environment` and a data home of its own.
    var environment: [String: String] {
        vault.environment.merging(["XDG_DATA_HOME": root.appendingPathComponent("data").path]) { $1 }
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
