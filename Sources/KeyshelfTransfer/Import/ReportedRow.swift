/// A row named in the import report, with what happened to it and why.
public struct ReportedRow: Sendable, Equatable {
    /// Where the row is in the file.
    public let position: RowPosition
    /// The server as displayed (Unicode), or the raw URL when it did not parse; may be "".
    public let server: String
    /// The user name, or "".
    public let account: String
    /// A sentence fragment: "no password", "already saved", "Android app entry (android://…), not a web login".
    public let reason: String

    /// The row's title or name, shown only when it has neither server nor account (a skipped Bitwarden card); may be "".
    public let title: String

    public init(position: RowPosition, server: String, account: String, reason: String, title: String = "") {
        self.title = title
        self.position = position
        self.server = server
        self.account = account
        self.reason = reason
    }
}
