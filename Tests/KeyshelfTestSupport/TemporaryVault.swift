import Foundation

/// A throwaway vault for tests that run the real `keyshelf`: a root folder
/// of its own holding the vault directory (`root/vault`, made by `keyshelf
/// init` when asked) and a master-password file (`root/master`), and the
/// environment that points the binary at them with the minimum KDF and a
/// home of its own, so no real vault is ever touched. The root goes with the value.
public final class TemporaryVault: @unchecked Sendable {
    /// The master password of every temporary vault.
    public static let masterPassword = "correct horse battery staple"

    /// The folder that holds everything; also `$HOME` of the runs.
    public let root: URL
    /// The vault directory (`$KEYSHELF_VAULT`).
    public let directory: URL
    /// The file holding the master password and a newline (`$KEYSHELF_PASSWORD_FILE`).
    public let passwordFile: URL

    /// Creates the root and the password file; `initialize` also runs `keyshelf init`.
    /// - Parameter shortRoot: a root of a few bytes under /tmp (`mkdtemp`), for
    ///   socket paths that must fit 107 bytes; otherwise under the temporary directory.
    /// - Throws: `TestProcessError` when the root cannot be made or `keyshelf init` fails.
    public init(initialize: Bool = true, shortRoot: Bool = false) throws {
        if shortRoot {
            var template = Array("/tmp/ksa-XXXXXX".utf8CString)
            guard let made = mkdtemp(&template) else { throw TestProcessError(message: "mkdtemp failed") }
            root = URL(fileURLWithPath: String(cString: made), isDirectory: true)
            chmod(root.path, 0o755)
        } else {
            root = FileManager.default.temporaryDirectory.appendingPathComponent("keyshelf-e2e-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        }
        directory = root.appendingPathComponent("vault")
        passwordFile = root.appendingPathComponent("master")
        try Data((Self.masterPassword + "\n").utf8).write(to: passwordFile)
        if initialize {
            let result = try runKeyshelf(["init"], environment: environment)
            guard result.status == 0 else { throw TestProcessError(message: "keyshelf init failed: \(result)") }
        }
    }

    deinit { try? FileManager.default.removeItem(at: root) }

    /// This vault, its password file, the minimum KDF, `$HOME` = `root`, `$PATH` and `LANG=C.UTF-8`.
    public var environment: [String: String] {
        [
            "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin",
            "HOME": root.path,
            "KEYSHELF_VAULT": directory.path,
            "KEYSHELF_PASSWORD_FILE": passwordFile.path,
            "KEYSHELF_TEST_KDF": "minimum",
            "LANG": "C.UTF-8",
        ]
    }

    /// Runs the built `keyshelf arguments` (`BuiltProduct.keyshelf`) without a
    /// controlling terminal (`Program.runDetached`) with exactly `environment`.
    public func runKeyshelf(_ arguments: [String], stdin: Data? = nil, environment: [String: String]) throws -> Run {
        try Program.runDetached(BuiltProduct.keyshelf.path, arguments, stdin: stdin, environment: environment)
    }
}
