/// A server name that cannot be normalised (DESIGN §1). The CLI maps it to exit 2 (usage).
public struct ServerNameError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The text the user gave, exactly as given.
    public var input: String
    /// Why it was refused, as a sentence fragment ("contains a space").
    public var reason: String

    public init(input: String, reason: String) {
        self.input = input
        self.reason = reason
    }

    /// `invalid server name "exa mple.com": contains a space`; the input is
    /// quoted by `InertText.quoted`, so hostile text stays inert.
    public var description: String {
        "invalid server name \(InertText.quoted(input)): \(reason)"
    }
}
