import Foundation
import KeyshelfCrypto

/// What the browser shows, apart from the screen: the records grouped by
/// domain, both lists' selection and scroll, the focused pane, the search
/// field, the status line and the revealed password. Changed only by
/// `apply(_:)`, which is pure (no shelf, screen or clock), so the rules of
/// selection, search and focus are tested without a terminal.
struct BrowserState {
    /// The pane that has focus.
    enum Pane: Equatable, Sendable { case domains, accounts }

    /// One change of the state.
    enum Action {
        /// New records from the shelf and what of them matches the search text
        /// (`Shelf.search`; nil when there is none): keeps the selected domain and
        /// account (by identity) where they are still shown, or selects record
        /// `select`; hides the revealed password when its record changed.
        case load([ShelfEntry], select: UUID?, matches: [Int]?)
        /// Selects the first record whose id is not in the set (what an add or an import saved).
        case selectNew(since: Set<UUID>)
        /// Selects the record with this id in both panes, when it is shown.
        case select(UUID)
        /// Selects a remembered place again (after a lock); clears the search first.
        case restore(ShelfApp.Selection)
        case focus(Pane)
        case togglePane
        /// A list key (`ListState.handle`) in the focused pane; page heights in rows.
        case move(Key, domainRows: Int, accountRows: Int)
        /// Keeps both selections inside windows of these heights (rows), before drawing.
        case scroll(domainRows: Int, accountRows: Int)
        /// `/`: the search field takes the keys.
        case beginSearch
        /// The search field after a key changed its text, and the records
        /// matching that text (`Shelf.search`; nil for no text): selects the first match.
        case search(TextField, matches: [Int]?)
        /// Enter in the search field: the filter stays, the domains get focus when any match.
        case keepSearch
        /// Esc in the search field: every domain shows again, the selection stays.
        case clearSearch
        /// Empties the search text without touching the selection (before a reload after a save).
        case resetSearch
        /// Esc in the browser: clears the search, hides the password, empties the status.
        case dismiss
        case status(String, error: Bool)
        /// The password of record `id`, shown in the detail until the selection moves.
        case reveal(UUID, Secret)
        case hidePassword
    }

    private(set) var index = DomainIndex(records: [])
    private(set) var domainList = ListState()
    private(set) var accountList = ListState()
    private(set) var pane = Pane.domains
    /// Whether the search field has focus.
    private(set) var searching = false
    private(set) var searchField = TextField()
    private(set) var status = ""
    private(set) var statusIsError = false
    /// The password shown by `r`, kept as a `Secret` and turned into text only while drawing.
    private(set) var revealed: (id: UUID, password: Secret)?

    /// The selected row of the domain pane, nil when none is shown.
    var selectedDomain: DomainIndex.Domain? {
        index.visible.indices.contains(domainList.selected) ? index.domains[index.visible[domainList.selected]] : nil
    }

    /// The selected account of the selected domain.
    var selectedRecord: ShelfEntry? {
        let accounts = index.accounts(ofVisible: domainList.selected)
        return accounts.indices.contains(accountList.selected) ? index.records[accounts[accountList.selected]] : nil
    }

    /// The records (indexes into `index.records`) the account pane shows.
    var shownAccounts: [Int] { index.accounts(ofVisible: domainList.selected) }

    mutating func apply(_ action: Action) {
        switch action {
        case .load(let records, let id, let matches): load(records, select: id, matches: matches)
        case .selectNew(let before):
            if let added = index.records.first(where: { !before.contains($0.id) }) { select(id: added.id) }
        case .select(let id): select(id: id)
        case .restore(let selection): restore(selection)
        case .focus(let newPane): pane = newPane
        case .togglePane: pane = pane == .domains ? .accounts : .domains
        case .move(let key, let domainRows, let accountRows): move(key, domainRows: domainRows, accountRows: accountRows)
        case .scroll(let domainRows, let accountRows):
            domainList.scrollToSelection(height: domainRows)
            accountList.scrollToSelection(height: accountRows)
        case .beginSearch:
            searching = true
            setStatus("")
        case .search(let field, let matches):
            searchField = field
            refilter(matches)
        case .keepSearch:
            searching = false
            if !index.visible.isEmpty { pane = .domains }
        case .clearSearch:
            searching = false
            clearSearch()
        case .resetSearch: searchField = TextField()
        case .dismiss:
            if !searchField.text.isEmpty { clearSearch() }
            revealed = nil
            setStatus("")
        case .status(let message, let error): setStatus(message, error: error)
        case .reveal(let id, let password): revealed = (id, password)
        case .hidePassword: revealed = nil
        }
    }

    private mutating func setStatus(_ message: String, error: Bool = false) {
        status = message
        statusIsError = error
    }

    private mutating func load(_ records: [ShelfEntry], select id: UUID?, matches: [Int]?) {
        let previousDomain = selectedDomain?.id
        let previousAccount = selectedRecord?.id
        // The shown password is the record's as it was revealed: once the record changed (an edit, a sync), hide it.
        if let shown = revealed?.id, index.records.first(where: { $0.id == shown }) != records.first(where: { $0.id == shown }) {
            revealed = nil
        }
        index = DomainIndex(records: records)
        index.filter(matching: searchField.text.isEmpty ? nil : matches)
        domainList.setCount(index.visible.count)
        if let previousDomain, let position = index.position(of: previousDomain) {
            domainList.select(position)
        }
        syncAccounts(select: previousAccount)
        if let id { select(id: id) }
    }

    private mutating func select(id: UUID) {
        guard let record = index.records.first(where: { $0.id == id }), let position = index.position(of: record.domain) else { return }
        domainList.select(position)
        accountList = ListState()
        syncAccounts(select: id)
    }

    /// Recomputes the account list for the selected domain, selecting record `id` when it is there.
    private mutating func syncAccounts(select id: UUID? = nil) {
        let accounts = shownAccounts
        accountList.setCount(accounts.count)
        if let id, let position = accounts.firstIndex(where: { index.records[$0].id == id }) {
            accountList.select(position)
        }
    }

    private mutating func restore(_ selection: ShelfApp.Selection) {
        if !searchField.text.isEmpty {
            searchField = TextField()
            refilter(nil)
        }
        guard let position = index.position(of: selection.domain) else { return }
        domainList.select(position)
        accountList = ListState()
        let match = index.records.first {
            $0.domain == selection.domain && $0.account == selection.account && $0.store == selection.store
        }
        syncAccounts(select: match?.id)
        pane = selection.pane
    }

    private mutating func move(_ key: Key, domainRows: Int, accountRows: Int) {
        switch pane {
        case .domains:
            let before = domainList.selected
            if domainList.handle(key, pageHeight: domainRows), before != domainList.selected {
                accountList = ListState()
                syncAccounts()
                revealed = nil
            }
        case .accounts:
            let before = accountList.selected
            if accountList.handle(key, pageHeight: accountRows), before != accountList.selected {
                revealed = nil
            }
        }
    }

    /// Empties the search and shows every domain again, keeping the selected
    /// domain and account selected (the first domain when nothing was selected).
    private mutating func clearSearch() {
        let domain = selectedDomain?.id
        let account = selectedRecord?.id
        searchField = TextField()
        refilter(nil)
        if let domain, let position = index.position(of: domain) {
            domainList.select(position)
            syncAccounts(select: account)
        }
    }

    /// Refilters after the search text changed; selects the first match.
    private mutating func refilter(_ matches: [Int]?) {
        index.filter(matching: searchField.text.isEmpty ? nil : matches)
        domainList = ListState(count: index.visible.count)
        accountList = ListState()
        syncAccounts()
        revealed = nil
    }
}
