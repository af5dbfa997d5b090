import CSystem
import Glibc

// The thin `keyshelf` (docs/architecture.md, "The thin client"): `get`,
// `list` and `search` answered by an unlocked agent are printed here, with
// no Foundation loaded; every other command line, and every answer that is
// not a plain success, runs the full program with the same arguments.

// As the full program does before any secret exists: no core dumps, not
// dumpable; a file size limit is an error, not a signal (survives the exec).
_ = keyshelf_disable_core_dumps()
signal(SIGXFSZ, SIG_IGN)

let arguments = CommandLine.arguments
do {
    let request = try FastRequest(arguments: Array(arguments.dropFirst()))
    let location = try AgentAddress(vaultOption: request.vault)
    try AgentExchange.withReply(to: request.body(), at: location) { reply throws(HandBack) in
        try ReplyPrinter.print(reply, for: request.command)
    }
    exit(0)
} catch {
    FullProgram.exec(arguments)
}
