import Foundation
import KeyshelfAgent
import KeyshelfClipboard
import KeyshelfVault

/// The TUI's screen loop once the screen is up: the unlock screen while the
/// vault is locked, the browser while it is open, until the user quits.
struct ShelfRun {
    let screen: CursesScreen
    let configuration: TUIConfiguration
    /// One clipboard for the whole run, so values copied before a lock are still known to it.
    let clipboard: Clipboard
    let title: String
    let directory: VaultDirectory
    /// `keyshelf demo`: locking does not lock an agent of the throwaway vault.
    let demo: Bool
    /// Shown once, on the first browser (a config file problem).
    var firstStatus: String?

    /// Runs browsers, asking the master password after each lock.
    /// - Parameter session: the vault opened before the screen started; nil shows the unlock screen first.
    /// - Returns: the process exit code: 0 quit, 1 or the `VaultError`'s code when the browser cannot be built.
    mutating func loop(session: VaultSession?) -> Int32 {
        var session = session
        // Where the user was when the vault locked: server, account, pane; no secret.
        var selection: ShelfApp.Selection?
        while true {
            if session == nil {
                session = UnlockScreen(screen: screen, directory: directory).run()
            }
            guard let unlocked = session else { return 0 }
            let app: ShelfApp
            do {
                app = try browser(unlocked, restoring: selection)
            } catch {
                screen.stop()
                return TUI.fail("\(error)", code: (error as? VaultError)?.exitCode ?? 1)
            }
            switch app.run() {
            case .quit:
                app.clipboard.clearNow()
                unlocked.lock()
                return 0
            case .locked:
                selection = app.selection
                session = nil
            }
        }
    }

    /// The browser over `unlocked`, back at `selection`, showing the first
    /// status (a config problem, else a missing `shared.vault`).
    /// - Throws: the errors of `KeyshelfShelf.init` (`VaultError` when the vault cannot be read).
    private mutating func browser(_ unlocked: VaultSession, restoring selection: ShelfApp.Selection?) throws -> ShelfApp {
        let shelf = try KeyshelfShelf(vault: unlocked, onLock: { [directory, demo] in
            unlocked.lock()
            // Locking the TUI locks the agent too, so the keys are gone everywhere.
            if !demo { AgentClient.lock(for: directory) }
        })
        let app = ShelfApp(screen: screen, shelf: shelf, configuration: configuration, title: title, clipboard: clipboard)
        if let selection { app.restore(selection) }
        unlocked.warningHandler = { [weak app] warning in app?.setStatus("warning: \(warning)", error: true) }
        if let message = firstStatus {
            app.setStatus(message, error: true)
            firstStatus = nil
        } else if unlocked.isSharedFileMissing {
            app.setStatus("shared.vault is missing; the shared credentials read as empty (restore it from backups/ or your sync copy)", error: true)
        }
        return app
    }
}
