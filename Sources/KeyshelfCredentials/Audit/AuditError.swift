/// Why an audit could not run: a Have I Been Pwned source that cannot be used.
/// Compared by `code`; `reason` is a sentence the user can act on.
public struct AuditError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: Sendable, Equatable {
        /// The `--hibp` file cannot be read, or is not a plain SHA-1 `HASH:COUNT` list.
        case unreadableList
        /// The `--hibp` file is compressed (gzip, 7z, zip, …): it must be unpacked to be searched.
        case compressedList
        /// The `--hibp` file's lines are not sorted by hash, so it cannot be binary-searched.
        case unsortedList
        /// The range API could not be reached or answered badly (`--online`).
        case network
    }

    public var code: Code
    public var reason: String

    public init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    public var description: String { reason }

    public static func == (a: AuditError, b: AuditError) -> Bool { a.code == b.code }
}
