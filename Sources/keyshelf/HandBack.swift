/// Why the thin client does not answer a command line itself: the full
/// program (`FullProgram.exec`) then runs it and gives every message and
/// exit code. Never shown; the cases say why, for a reader of the code.
enum HandBack: Error {
    /// A command, option or argument form the thin client does not serve.
    case unservedArguments
    /// No usable vault directory or agent socket (none, unsafe, too long).
    case noAgent
    /// The agent could not be reached or talked to (refused, another uid, stopped, slow, cut off).
    case agentTrouble
    /// A reply that is not a plain success (locked, consent, an error, a hand-back)
    /// or not fully understood.
    case notPlainSuccess
    /// Output the full program prints differently (Unicode names, IPv6, nothing found).
    case outputNeedsFullProgram
    /// Standard input the full program reports on (`add --password-stdin`:
    /// empty, closed, a line too long, a read error).
    case inputNeedsFullProgram
}
