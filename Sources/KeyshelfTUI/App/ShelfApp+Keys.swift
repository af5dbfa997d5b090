import Foundation
import KeyshelfCrypto
import KeyshelfVault

extension ShelfApp {
    /// Applies one key in the browser (DESIGN §7).
    public func handle(_ key: Key) {
        if key == .resize { return }
        let size = screen.size
        if size.rows < minimumSize.rows || size.columns < minimumSize.columns {
            if key == .character("q") || key == .control("c") { quitRequested = true }
            return
        }
        if searching {
            handleSearch(key)
            return
        }
        let layout = Layout(size)
        switch key {
        case .character("q"), .control("c"):
            quitRequested = true
        case .tab, .backTab, .character("h"), .character("l"), .left, .right:
            switchPane(key)
        case .character("/"):
            searching = true
            setStatus("")
        case .escape:
            if !searchField.text.isEmpty { clearSearch() }
            revealed = nil
            setStatus("")
        case .enter:
            if pane == .domains { pane = .accounts } else { showDetailDialog() }
        case .character("?"):
            showHelp()
        case .character("a"):
            addCredential(password: nil)
        case .character("e"):
            editCredential()
        case .character("d"):
            deleteCredential()
        case .character("g"):
            if let password = generateDialog(for: selectedDomain?.title) { addCredential(password: password) }
        case .character("i"):
            importFile()
        case .character("c"):
            copyPassword()
        case .character("u"):
            copyAccount()
        case .character("o"):
            copyOneTimeCode()
        case .character("r"):
            reveal()
        case .character("L"):
            runLogin()
        case .character("X"):
            lockRequested = true
        case .character("S"):
            showSecurityRecommendations()
        default:
            moveSelection(key, layout: layout)
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
        switch key {
        case .escape:
            searching = false
            clearSearch()
        case .enter:
            searching = false
            if !index.visible.isEmpty { pane = .domains }
        case .down, .up:
            moveSelection(key, layout: Layout(screen.size))
        case .control("c"):
            quitRequested = true
        default:
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
