/// A command line the program cannot act on (exit 2, DESIGN §8): an unknown
/// option, a missing or extra argument, a bad value, or an invalid server name.
struct UsageError: Error, Equatable, Sendable {
    /// The sentence shown after "keyshelf: ", naming the offending argument.
    var message: String
    /// The command whose usage line is printed after the message; nil for none.
    var command: String?

    init(_ message: String, command: String? = nil) {
        self.message = message
        self.command = command
    }
}
