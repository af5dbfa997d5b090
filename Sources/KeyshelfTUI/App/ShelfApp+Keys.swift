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
        if searching {
            handleSearch(key)
            return
        }
        guard let action = KeyMap.browserAction(for: key) else { return }
        perform(action, key: key)
    }

    /// Runs a browser action; `key` is the key that asked for it (moves and pane switches depend on which).
    private func perform(_ action: BrowserAction, key: Key) {
        switch action {
        case .quit: quitRequested = true
        case .switchPane: switchPane(key)
        case .search:
            searching = true
            setStatus("")
        case .dismiss:
            if !searchField.text.isEmpty { clearSearch() }
            revealed = nil
            setStatus("")
        case .open:
            if pane == .domains { pane = .accounts } else { showDetailDialog() }
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

    private func switchPane(_ key: Key) {
        switch key {
        case .character("h"), .left: pane = .domains
        case .character("l"), .right: pane = .accounts
        default: pane = pane == .domains ? .accounts : .domains
        }
    }

    private func moveSelection(_ key: Key, layout: Layout) {
        switch pane {
        case .domains:
            let before = domainList.selected
            if domainList.handle(key, pageHeight: layout.domainRows), before != domainList.selected {
                accountList = ListState()
                syncAccounts()
                revealed = nil
            }
        case .accounts:
            let before = accountList.selected
            if accountList.handle(key, pageHeight: layout.accountRows), before != accountList.selected {
                revealed = nil
            }
        }
    }

    private func handleSearch(_ key: Key) {
        switch KeyMap.searchAction(for: key) {
        case .clear:
            searching = false
            clearSearch()
        case .keep:
            searching = false
            if !index.visible.isEmpty { pane = .domains }
        case .move:
            moveSelection(key, layout: Layout(screen.size))
        case .quit:
            quitRequested = true
        case nil:
            if searchField.handle(key) { applySearch() }
        }
    }

    /// Empties the search and shows every domain again, keeping the selected
    /// domain and account selected (the first domain when nothing was selected).
    func clearSearch() {
        let domain = selectedDomain?.id
        let account = selectedRecord?.id
        searchField = TextField()
        applySearch()
        if let domain, let position = index.position(of: domain) {
            domainList.select(position)
            syncAccounts(select: account)
        }
    }

    /// Refilters after the search text changed; selects the first match.
    func applySearch() {
        index.filter(searchField.text)
        domainList = ListState(count: index.visible.count)
        accountList = ListState()
        syncAccounts()
        revealed = nil
    }
}
