import Foundation

/// Runs programs to their end for the tests (the real `keyshelf`, git,
/// openssl, …) through Foundation's `Process`, standard output and error on
/// pipes read to the end. The one runner of the suites; `TestProcess` only
/// starts programs that fork a server (tmux, xclip, Xvfb), which `Process`
/// loses track of.
public enum Program {
    /// Runs `path arguments…` and waits for it.
    /// - Parameters:
    ///   - stdin: bytes on standard input, then end of input; nil means none (empty input).
    ///   - environment: the complete environment (no variables of the test runner
    ///     leak in); nil inherits the runner's.
    ///   - currentDirectory: where it runs; nil is the runner's.
    ///   - input: a handle to use as standard input instead of `stdin` (a
    ///     pseudo-terminal, /dev/null).
    ///   - output: a handle for standard output instead of a pipe; `Run.stdoutData` is then empty.
    ///   - timeout: seconds after which it is killed with SIGKILL (`Run.timedOut`);
    ///     nil waits for ever. SIGKILL, because a curses program blocked
    ///     writing to an unread pipe would not get through its SIGTERM handler.
    /// - Throws: what `Process.run` throws when the program cannot start.
    public static func run(_ path: String, _ arguments: [String], stdin: Data? = nil, environment: [String: String]?,
                           currentDirectory: URL? = nil, input: FileHandle? = nil, output: FileHandle? = nil,
                           timeout: Double? = nil) throws -> Run {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        if let environment { process.environment = environment }
        if let currentDirectory { process.currentDirectoryURL = currentDirectory }
        let out = Pipe(), err = Pipe(), inputPipe = Pipe()
        process.standardOutput = output ?? out
        process.standardError = err
        process.standardInput = input ?? inputPipe
        let exited = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in exited.signal() }
        try process.run()
        if input == nil {
            // Write on another thread so a child that does not read cannot block us.
            let writer = inputPipe.fileHandleForWriting
            let bytes = stdin ?? Data()
            Thread.detachNewThread {
                signal(SIGPIPE, SIG_IGN)
                try? writer.write(contentsOf: bytes)
                try? writer.close()
            }
        }
        // Read both pipes on their own threads, so a full pipe cannot deadlock and a timeout can still strike.
        let outBox = Collected(output == nil ? out.fileHandleForReading : nil)
        let errBox = Collected(err.fileHandleForReading)
        var timedOut = false
        if let timeout, exited.wait(timeout: .now() + timeout) == .timedOut {
            kill(process.processIdentifier, SIGKILL)
            timedOut = true
            exited.wait()
        } else if timeout == nil {
            exited.wait()
        }
        process.waitUntilExit()
        return Run(status: process.terminationStatus, stdoutData: outBox.data(), stderr: String(decoding: errBox.data(), as: UTF8.self),
                   timedOut: timedOut)
    }

    /// Runs a program in a new session (`setsid -w`), so it has no controlling
    /// terminal even when the tests run in one: prompts cannot hang a test,
    /// and "nobody to ask" is what the program sees. Parameters as `run`.
    public static func runDetached(_ path: String, _ arguments: [String], stdin: Data? = nil,
                                   environment: [String: String]?, currentDirectory: URL? = nil) throws -> Run {
        try run("/usr/bin/setsid", ["-w", path] + arguments, stdin: stdin, environment: environment,
                currentDirectory: currentDirectory)
    }
}

/// The bytes of one pipe, read to its end on a thread of its own.
private final class Collected: @unchecked Sendable {
    private var bytes = Data()
    private let done = DispatchSemaphore(value: 0)

    /// Starts reading `handle`; nil collects nothing.
    init(_ handle: FileHandle?) {
        guard let handle else { done.signal(); return }
        Thread.detachNewThread { [self] in
            bytes = handle.readDataToEndOfFile()
            done.signal()
        }
    }

    /// Waits for the end of the pipe and returns what came through it.
    func data() -> Data {
        done.wait()
        return bytes
    }
}
