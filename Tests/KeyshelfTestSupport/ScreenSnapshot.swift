import Foundation

/// A screen capture compared in full with a text file of the checkout
/// (`docs/screens/*.txt`, …), after both sides are normalised for what varies
/// between runs (times, random passwords, paths). With
/// `KEYSHELF_RECORD_SNAPSHOTS=1` in the environment the capture is written to
/// the file instead, to be checked by eye (`git diff`) and committed.
public struct ScreenSnapshot: Sendable {
    /// A part of a screen that differs from run to run: every match of
    /// `pattern` (a regular expression) is replaced by `replacement` on both sides.
    public struct Variable: Sendable {
        public var pattern: String
        public var replacement: String
        public init(_ pattern: String, _ replacement: String) {
            self.pattern = pattern
            self.replacement = replacement
        }

        /// Dates and times as the TUI shows them (`2026-11-29 16:25`).
        public static let dateTime = Variable(#"\d{4}-\d{2}-\d{2} \d{2}:\d{2}"#, "YYYY-MM-DD hh:mm")
    }

    /// The file, relative to the package's top folder (e.g. `docs/screens/browse.txt`).
    public var path: String
    /// What is replaced before comparing; times by default.
    public var variables: [Variable]

    public init(_ path: String, variables: [Variable] = [.dateTime]) {
        self.path = path
        self.variables = variables
    }

    /// Whether this run re-records snapshots (`KEYSHELF_RECORD_SNAPSHOTS=1`).
    public static var recording: Bool { ProcessInfo.processInfo.environment["KEYSHELF_RECORD_SNAPSHOTS"] == "1" }

    /// Compares `capture` with the file, or rewrites the file when recording.
    /// - Returns: nil when they agree (or the file was rewritten); otherwise a
    ///   description of the first differing line and both screens, for the test's message.
    /// - Throws: what reading or writing the file throws (a missing file is a mismatch, not an error).
    public func mismatch(_ capture: String) throws -> String? {
        let file = BuiltProduct.checkout.appendingPathComponent(path)
        if Self.recording {
            try Data(capture.utf8).write(to: file)
            return nil
        }
        guard let data = FileManager.default.contents(atPath: file.path) else {
            return "\(path) does not exist; record it with KEYSHELF_RECORD_SNAPSHOTS=1"
        }
        let expected = normalised(String(decoding: data, as: UTF8.self))
        let actual = normalised(capture)
        guard expected != actual else { return nil }
        let expectedLines = expected.components(separatedBy: "\n"), actualLines = actual.components(separatedBy: "\n")
        let line = zip(expectedLines, actualLines).enumerated().first { $0.element.0 != $0.element.1 }?.offset
            ?? min(expectedLines.count, actualLines.count)
        return "\(path) differs from the capture at line \(line + 1) (re-record with KEYSHELF_RECORD_SNAPSHOTS=1 if the change is right)"
            + "\n--- expected\n\(expected)\n--- captured\n\(actual)"
    }

    /// `text` with every variable part replaced and trailing blanks of each line dropped
    /// (tmux trims them; editors may too).
    public func normalised(_ text: String) -> String {
        var result = text
        for variable in variables {
            result = result.replacingOccurrences(of: variable.pattern, with: variable.replacement, options: .regularExpression)
        }
        let lines = result.components(separatedBy: "\n").map { line in
            String(line.reversed().drop { $0 == " " }.reversed())
        }
        return lines.joined(separator: "\n").trimmingCharacters(in: .newlines) + "\n"
    }
}
