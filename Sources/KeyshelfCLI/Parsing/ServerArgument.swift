import KeyshelfCredentials

/// Reads the SERVER and ACCOUNT arguments before anything is asked or opened,
/// so bad input fails fast with exit 2 and a message quoting it.
enum ServerArgument {
    /// Parses a host name, `host:port` or URL (DESIGN §1, §8).
    /// - Throws: `ServerNameError` (exit 2) quoting the input.
    static func parse(_ text: String) throws -> ServerName {
        try ServerName(parsing: text)
    }

    /// Parses a SERVER for a lookup: without a scheme it matches every
    /// protocol (issue 13 rule 1, docs/credentials.md).
    /// - Throws: `ServerNameError` (exit 2) quoting the input.
    static func pattern(_ text: String) throws -> ServerPattern {
        try ServerPattern(parsing: text)
    }

    /// Checks that an ACCOUNT argument is not empty.
    /// - Throws: `UsageError` (exit 2).
    static func account(_ text: String) throws(UsageError) -> String {
        guard !text.isEmpty else { throw UsageError("the account is empty") }
        return text
    }
}
