import Foundation
import KeyshelfCLI
import KeyshelfCrypto
import KeyshelfTUI

// Before any secret exists: no core dumps, not dumpable (DESIGN §6); a file
// size limit is an error a save reports, not a signal that kills it.
ProcessHardening.disableCoreDumps()
ProcessHardening.ignoreFileSizeSignal()
// sodium_malloc goes on silently when mlock fails; say so once (issue 11 item 26).
MemoryLocking.onFirstFailure { message in
    FileHandle.standardError.write(Data(("keyshelf: " + message + "\n").utf8))
}
// The composition root: the CLI knows the TUI only through this (issue 12 item 5).
let terminalUI = TerminalUI(
    run: { request in
        TUI.run(TUIOptions(vaultDirectory: request.vaultDirectory, password: request.password, demo: request.demo,
                           theme: request.theme, useAgent: request.useAgent))
    },
    themeNames: { environment in Theme.names(searchPaths: Theme.searchPaths(environment: environment)) })
exit(CommandLineInterface.run(arguments: Array(CommandLine.arguments.dropFirst()),
                              environment: ProcessInfo.processInfo.environment,
                              terminalUI: terminalUI))
