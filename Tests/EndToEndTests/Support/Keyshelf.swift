import Foundation
import KeyshelfTestSupport

/// Runs the `keyshelf` executable that `swift build` / `swift test` built
/// (`Program` of KeyshelfTestSupport runs it, and any other program).
enum Keyshelf {
    /// The executable under test (`BuiltProduct.keyshelf`).
    static var binary: URL { BuiltProduct.keyshelf }

    /// Runs `keyshelf arguments` and waits for it.
    /// - Parameters:
    ///   - stdin: bytes on standard input, then end of input; nil means /dev/null.
    ///   - environment: the complete environment (no variables of the test runner leak in).
    ///   - passwordOnFD3: a line the child can read on descriptor 3 (for `--password-fd 3`).
    static func run(_ arguments: [String], stdin: Data? = nil, environment: [String: String],
                    passwordOnFD3: String? = nil) throws -> Run {
        guard let passwordOnFD3 else {
            return try Program.runDetached(binary.path, arguments, stdin: stdin, environment: environment)
        }
        // Process passes only descriptors 0–2; a shell opens 3 on a file for the child.
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("keyshelf-fd3-\(UUID().uuidString)")
        try Data((passwordOnFD3 + "\n").utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        var environment = environment
        environment["KEYSHELF_FD3_FILE"] = file.path
        return try Program.runDetached("/bin/sh", ["-c", "exec \"$0\" \"$@\" 3<\"$KEYSHELF_FD3_FILE\"", binary.path] + arguments,
                                      stdin: stdin, environment: environment)
    }
}
