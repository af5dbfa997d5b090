import Foundation
import KeyshelfCLI
import KeyshelfCrypto

// Before any secret exists: no core dumps, not dumpable (DESIGN §6).
ProcessHardening.disableCoreDumps()
exit(CommandLineInterface.run(arguments: Array(CommandLine.arguments.dropFirst()),
                              environment: ProcessInfo.processInfo.environment))
