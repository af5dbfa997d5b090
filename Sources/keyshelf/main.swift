import CSystem
import Glibc

// The thin `keyshelf` (docs/architecture.md, "The thin client"): `get`,
// `list`, `search`, `add --password-stdin`, `rm --yes` and `edit` of a label,
// an account name or a store, answered by an unlocked agent, are printed here,
// with no Foundation loaded; every other
// command line, and every answer that is not a plain success, runs the full
// program with the same arguments (and, after `add` read its password, the
// same standard input).

// As the full program does before any secret exists: no core dumps, not
// dumpable; a file size limit is an error, not a signal (survives the exec).
_ = keyshelf_disable_core_dumps()
signal(SIGXFSZ, SIG_IGN)

let arguments = CommandLine.arguments
/// `add`'s password line once read: put back before the full program runs.
var passwordLine: PasswordLine?
do {
    let request = try FastRequest(arguments: Array(arguments.dropFirst()))
    let location = try AgentAddress(vaultOption: request.vault)
    var password: UnsafeRawBufferPointer?
    if case .change = request.command {
        // Standard input is read only when an agent may answer: a locked one has no socket.
        try location.requireSocket()
        let line = try PasswordLine()
        passwordLine = line
        guard let read = line.password else { throw HandBack.inputNeedsFullProgram }
        password = read
    }
    let frame = try request.frame(password: password)
    try AgentExchange.withReply(to: UnsafeRawBufferPointer(frame.buffer), at: location) { reply throws(HandBack) in
        try ReplyPrinter.print(reply, for: request.command)
    }
    exit(0)
} catch {
    passwordLine?.replay()
    FullProgram.exec(arguments)
}
