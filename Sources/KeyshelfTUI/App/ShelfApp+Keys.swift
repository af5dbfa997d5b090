import Foundation
import KeyshelfCrypto
import KeyshelfVault

extension ShelfApp {
    /// Applies one key in the browser (DESIGN §7).
    public func handle(_ key: Key) {
        if key == .resize { return }
        let size = screen.size
        if size.rows < minimumSize.rows || size.columns < minimumSize.columns {
            if KeyMap.browserAction(for: key) == .quit { quitRequested = true }
            return
        }
        if state.searching {
            handleSearch(key)
            return
        }
        guard let action = KeyMap.browserAction(for: key) else { return }
        perform(action, key: key)
    }

    /// Runs a browser action; `key` is the key that asked for it (a move depends on which).
    private func perform(_ action: BrowserAction, key: Key) {
        switch action {
        case .quit: quitRequested = true
        case .switchPane: state.apply(.togglePane)
        case .focusDomains: state.apply(.focus(.domains))
        case .focusAccounts: state.apply(.focus(.accounts))
        case .search: state.apply(.beginSearch)
        case .dismiss: state.apply(.dismiss)
        case .open:
            if state.pane == .domains { state.apply(.focus(.accounts)) } else { showDetailDialog() }
        case .help: showHelp()
        case .add: addCredential(password: nil)
        case .edit: editCredential()
        case .delete: deleteCredential()
        case .generate:
            if let password = generateDialog(for: selectedDomain?.title) { addCredential(password: password) }
        case .importFile: importFile()
        case .copyPassword: copyPassword()
        case .copyAccount: copyAccount()
        case .copyOneTimeCode: copyOneTimeCode()
        case .reveal: reveal()
        case .login: runLogin()
        case .lock: lockRequested = true
        case .security: showSecurityRecommendations()
        case .move, .scroll: moveSelection(key, layout: Layout(screen.size))
        }
    }

    private func moveSelection(_ key: Key, layout: Layout) {
        state.apply(.move(key, domainRows: layout.domainRows, accountRows: layout.accountRows))
    }

    private func handleSearch(_ key: Key) {
        switch KeyMap.searchAction(for: key) {
        case .clear: state.apply(.clearSearch)
        case .keep: state.apply(.keepSearch)
        case .move: moveSelection(key, layout: Layout(screen.size))
        case .quit: quitRequested = true
        case nil:
            var field = state.searchField
            if field.handle(key) { state.apply(.search(field, matches: matches(of: field.text))) }
        }
    }
}
