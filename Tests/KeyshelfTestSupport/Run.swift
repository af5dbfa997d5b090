import Foundation

/// The result of one program run by the tests (`Program.run`): exit status
/// and both outputs.
public struct Run: CustomStringConvertible, Sendable {
    /// The exit status, or the signal number when a signal ended it (`Process.terminationStatus`).
    public let status: Int32
    /// Standard output as bytes (empty when it went to a handle of the caller's).
    public let stdoutData: Data
    /// Standard error, decoded as UTF-8 (invalid bytes replaced).
    public let stderr: String
    /// Whether the run outlived its timeout and was killed.
    public let timedOut: Bool

    public init(status: Int32, stdoutData: Data, stderr: String, timedOut: Bool = false) {
        self.status = status
        self.stdoutData = stdoutData
        self.stderr = stderr
        self.timedOut = timedOut
    }

    /// Standard output decoded as UTF-8.
    public var stdout: String { String(decoding: stdoutData, as: UTF8.self) }
    /// The non-empty lines of standard output.
    public var lines: [String] { stdout.split(separator: "\n", omittingEmptySubsequences: true).map(String.init) }

    /// Standard output parsed as JSON.
    /// - Throws: what `JSONSerialization` throws for output that is not JSON.
    public func json() throws -> Any { try JSONSerialization.jsonObject(with: stdoutData) }

    public var description: String { "exit \(status)\(timedOut ? " (killed: timed out)" : "")\n--- stdout\n\(stdout)--- stderr\n\(stderr)" }
}
