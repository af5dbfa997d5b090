import Foundation
import KeyshelfTestSupport

/// The result of one run of the real `keyshelf` binary.
struct Run: CustomStringConvertible {
    let status: Int32
    let stdoutData: Data
    let stderr: String

    var stdout: String { String(decoding: stdoutData, as: UTF8.self) }
    var lines: [String] { stdout.split(separator: "\n", omittingEmptySubsequences: true).map(String.init) }

    /// Standard output parsed as JSON.
    func json() throws -> Any { try JSONSerialization.jsonObject(with: stdoutData) }

    var description: String { "exit \(status)\n--- stdout\n\(stdout)--- stderr\n\(stderr)" }
}

/// Locates and runs the `keyshelf` executable that `swift build` / `swift test` built.
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
            return try runDetached(binary.path, arguments, stdin: stdin, environment: environment)
        }
        // Process passes only descriptors 0–2; a shell opens 3 on a file for the child.
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("keyshelf-fd3-\(UUID().uuidString)")
        try Data((passwordOnFD3 + "\n").utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        var environment = environment
        environment["KEYSHELF_FD3_FILE"] = file.path
        return try runDetached("/bin/sh", ["-c", "exec \"$0\" \"$@\" 3<\"$KEYSHELF_FD3_FILE\"", binary.path] + arguments,
                              stdin: stdin, environment: environment)
    }

    /// Runs a program in a new session (`setsid`), so it has no controlling
    /// terminal even when the tests run in one: prompts cannot hang a test,
    /// and "nobody to ask" is what the program sees.
    static func runDetached(_ path: String, _ arguments: [String], stdin: Data? = nil,
                            environment: [String: String], currentDirectory: URL? = nil) throws -> Run {
        try runProcess("/usr/bin/setsid", ["-w", path] + arguments, stdin: stdin,
                       environment: environment, currentDirectory: currentDirectory)
    }

    /// Runs any program, feeding `stdin` and collecting both outputs.
    static func runProcess(_ path: String, _ arguments: [String], stdin: Data? = nil,
                           environment: [String: String], currentDirectory: URL? = nil) throws -> Run {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        process.environment = environment
        if let currentDirectory { process.currentDirectoryURL = currentDirectory }
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        let input = Pipe()
        process.standardInput = input
        try process.run()
        // Write on another thread so a child that does not read cannot block us.
        let writer = input.fileHandleForWriting
        let bytes = stdin ?? Data()
        Thread.detachNewThread {
            signal(SIGPIPE, SIG_IGN)
            try? writer.write(contentsOf: bytes)
            try? writer.close()
        }
        // Read both pipes to the end before waiting, so a full pipe cannot deadlock.
        let errBox = DataBox()
        let errDone = DispatchSemaphore(value: 0)
        let errHandle = err.fileHandleForReading
        Thread.detachNewThread {
            errBox.data = errHandle.readDataToEndOfFile()
            errDone.signal()
        }
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        errDone.wait()
        process.waitUntilExit()
        return Run(status: process.terminationStatus, stdoutData: outData, stderr: String(decoding: errBox.data, as: UTF8.self))
    }
}

private final class DataBox: @unchecked Sendable {
    var data = Data()
}
