import Foundation
import KeyshelfCLI
import KeyshelfCrypto

// Before any secret exists: no core dumps, not dumpable (DESIGN §6); a file
// size limit is an error a save reports, not a signal that kills it.
ProcessHardening.disableCoreDumps()
ProcessHardening.ignoreFileSizeSignal()
// sodium_malloc goes on silently when mlock fails; say so once (issue 11 item 26).
MemoryLocking.onFirstFailure { message in
    FileHandle.standardError.write(Data(("keyshelf: " + message + "\n").utf8))
}
exit(CommandLineInterface.run(arguments: Array(CommandLine.arguments.dropFirst()),
                              environment: ProcessInfo.processInfo.environment))
