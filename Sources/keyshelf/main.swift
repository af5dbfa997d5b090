import Foundation
import KeyshelfCLI
import KeyshelfCrypto

// Before any secret exists: no core dumps, not dumpable (DESIGN §6); a file
// size limit is an error a save reports, not a signal that kills it.
ProcessHardening.disableCoreDumps()
ProcessHardening.ignoreFileSizeSignal()
exit(CommandLineInterface.run(arguments: Array(CommandLine.arguments.dropFirst()),
                              environment: ProcessInfo.processInfo.environment))
