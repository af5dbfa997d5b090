import Foundation

/// Smallest usable terminal (issue 4): below it a message replaces the layout.
public let minimumSize = Size(rows: 16, columns: 60)

extension ShelfApp {
    /// Geometry of the browser for the current size.
    struct Layout {
        var leftWidth: Int
        var bodyTop = 1
        var bodyHeight: Int
        var accountsHeight: Int
        var columns: Int
        var rows: Int

        init(_ size: Size) {
            columns = size.columns
            rows = size.rows
            leftWidth = max(26, size.columns * 2 / 5)
            bodyHeight = size.rows - 3
            accountsHeight = max(5, bodyHeight * 2 / 5)
        }

        var domainRows: Int { bodyHeight - 2 }
        var accountRows: Int { accountsHeight - 2 }
    }

    /// Draws the whole browser (or the too-small message) and refreshes.
    public func draw() {
        screen.clear()
        screen.setCursor(row: 0, column: 0, visible: false)
        if !drawTooSmallIfNeeded(screen) {
            drawBrowser()
        }
        screen.refresh()
    }

    /// Draws "terminal too small" when the screen is below `minimumSize`; returns true when it did.
    func drawTooSmallIfNeeded(_ screen: Screen) -> Bool {
        let size = screen.size
        guard size.rows < minimumSize.rows || size.columns < minimumSize.columns else { return false }
        TooSmallNotice.draw(on: screen, minimum: minimumSize, hint: "Enlarge the window, or press q to quit.")
        return true
    }

    func drawBrowser() {
        let layout = Layout(screen.size)
        state.apply(.scroll(domainRows: layout.domainRows, accountRows: layout.accountRows))
        drawTitle(layout)
        drawDomains(layout)
        drawAccounts(layout)
        drawDetail(layout)
        drawStatus(layout)
    }

    /// What the marks in the lists mean, for `?`; `drawDomains` and `drawAccounts` draw them.
    static let markHelpRows: [(keys: String, help: String)] = [
        ("L S", "a domain with accounts in the local store / the shared credentials"),
        ("!", "an account with a security finding (S lists them and why)"),
        ("otp", "an account with a one-time code (o copies it)"),
        ("Apple", "an account that signs in with Apple (Apple·relay: Hide My Email)"),
        ("local shared", "the store of an account"),
    ]

    private func drawTitle(_ layout: Layout) {
        screen.fill(row: 0, column: 0, width: layout.columns, role: .title)
        let counts = "\(index.visible.count)/\(index.domains.count) domains · \(index.records.count) accounts"
        let showsSearch = state.searching || !state.searchField.text.isEmpty
        let fieldWidth = min(30, layout.columns / 3)
        let rightWidth = showsSearch ? fieldWidth + 4 : TerminalText.columns(counts) + 2
        let titleWidth = max(0, layout.columns - rightWidth - 1)
        screen.putPadded(" " + title, row: 0, column: 0, width: titleWidth, role: .title)
        if showsSearch {
            let column = layout.columns - fieldWidth - 3
            screen.put(" /", row: 0, column: column - 1, role: .title, width: 2)
            let cursor = state.searchField.draw(on: screen, row: 0, column: column + 1, width: fieldWidth, role: .input)
            if state.searching { screen.setCursor(row: 0, column: cursor, visible: true) }
        } else {
            screen.put(counts + " ", row: 0, column: max(0, layout.columns - TerminalText.columns(counts) - 1), role: .title)
        }
    }

    private func drawDomains(_ layout: Layout) {
        let focused = state.pane == .domains && !state.searching
        Box.draw(on: screen, row: layout.bodyTop, column: 0, height: layout.bodyHeight, width: layout.leftWidth,
                 title: "Domains", role: .border, titleRole: focused ? .accent : .dim)
        let inner = layout.leftWidth - 2
        if index.visible.isEmpty {
            let message = index.domains.isEmpty ? "Empty: press a to add" : "Nothing matches"
            screen.put(message, row: layout.bodyTop + 1, column: 2, role: .dim, width: inner - 2)
            return
        }
        for line in 0..<layout.domainRows {
            let position = state.domainList.top + line
            guard position < index.visible.count else { break }
            let domain = index.domains[index.visible[position]]
            let row = layout.bodyTop + 1 + line
            let selected = position == state.domainList.selected
            let role: Role = selected ? (focused ? .selection : .selectionInactive) : .normal
            let badge = (domain.hasLocal ? "L" : " ") + (domain.hasShared ? "S" : " ")
            let count = String(domain.members.count)
            let right = " \(count) \(badge)"
            let nameWidth = inner - 2 - TerminalText.columns(right)
            screen.putPadded(" " + domain.title, row: row, column: 1, width: nameWidth + 1, role: role)
            screen.put(" \(count) ", row: row, column: 1 + nameWidth + 1, role: selected ? role : .dim)
            let badgeColumn = 1 + nameWidth + 1 + count.count + 2
            screen.put(domain.hasLocal ? "L" : " ", row: row, column: badgeColumn, role: selected ? role : .badgeLocal, width: 1)
            screen.put(domain.hasShared ? "S" : " ", row: row, column: badgeColumn + 1, role: selected ? role : .badgeShared, width: 1)
        }
    }

    private func drawAccounts(_ layout: Layout) {
        let left = layout.leftWidth
        let width = layout.columns - left
        let focused = state.pane == .accounts && !state.searching
        let domainTitle = selectedDomain?.title ?? ""
        Box.draw(on: screen, row: layout.bodyTop, column: left, height: layout.accountsHeight, width: width,
                 title: domainTitle.isEmpty ? "Accounts" : "Accounts of \(domainTitle)", role: .border, titleRole: focused ? .accent : .dim)
        let accounts = state.shownAccounts
        let inner = width - 2
        for line in 0..<layout.accountRows {
            let position = state.accountList.top + line
            guard position < accounts.count else { break }
            let record = index.records[accounts[position]]
            let row = layout.bodyTop + 1 + line
            let selected = position == state.accountList.selected
            let role: Role = selected ? (focused ? .selection : .selectionInactive) : .normal
            let tag = record.store == .local ? "local " : "shared"
            let nameWidth = inner - 8
            // "!" marks an account with an audit finding (the `S` view says why).
            let badge = findingIDs.contains(record.id) ? "!" : " "
            // A trailing badge: "Apple" for Sign in with Apple, else "otp" for an
            // account with a one-time-code secret (the detail shows the code).
            let apple = AppleBadge.text(record)
            let trailing = apple.isEmpty ? (hasOneTimeCode(record.id) ? " otp" : "") : apple
            let trailingWidth = trailing.isEmpty ? 0 : min(TerminalText.columns(trailing), max(0, nameWidth - 4))
            screen.putPadded(badge + record.account, row: row, column: left + 1, width: nameWidth - trailingWidth, role: role)
            if trailingWidth > 0 {
                screen.put(trailing, row: row, column: left + 1 + nameWidth - trailingWidth, role: selected ? role : .accent, width: trailingWidth)
            }
            screen.putPadded(" " + tag + " ", row: row, column: left + 1 + nameWidth, width: 8,
                             role: selected ? role : (record.store == .local ? .badgeLocal : .badgeShared))
        }
    }

    private func drawDetail(_ layout: Layout) {
        let left = layout.leftWidth
        let width = layout.columns - left
        let top = layout.bodyTop + layout.accountsHeight
        let height = layout.bodyHeight - layout.accountsHeight
        Box.draw(on: screen, row: top, column: left, height: height, width: width, title: "Detail", role: .border, titleRole: .dim)
        guard let record = selectedRecord, height > 2 else { return }
        let labelWidth = 10
        let valueWidth = width - 3 - labelWidth
        var lines: [(String, String, Role)] = []
        lines.append(("Account", record.account, .normal))
        lines.append(("Server", record.serverWithPort, .normal))
        if !record.label.isEmpty { lines.append(("Label", record.label, .normal)) }
        if let apple = record.signInWithApple {
            lines += AppleBadge.detail(apple, account: record.account, width: valueWidth)
        } else if let revealed = state.revealed, revealed.id == record.id {
            lines.append(("Password", revealed.password.unsafeString() ?? "(not UTF-8 text)", .accent))
        } else {
            lines.append(("Password", "••••••••••••   r reveal · c copy", .dim))
        }
        if let code = oneTimeCodeLine(for: record) { lines.append(code) }
        lines.append(("Store", record.store == .local ? "local (this device only)" : "shared (synced)", record.store == .local ? .badgeLocal : .badgeShared))
        lines.append(("Created", DateText.format(record.creationDate), .normal))
        lines.append(("Modified", DateText.format(record.modificationDate), .normal))
        if record.requiresUserPresence {
            lines.append(("Access", "master password asked before reveal", .dim))
        }
        let notes = TerminalText.wrap(record.comment, width: max(1, valueWidth))
        for (i, note) in notes.enumerated() where !record.comment.isEmpty {
            lines.append((i == 0 ? "Notes" : "", note, .normal))
        }
        for (i, line) in lines.prefix(height - 2).enumerated() {
            let row = top + 1 + i
            screen.put(line.0, row: row, column: left + 2, role: .dim, width: labelWidth)
            screen.put(line.1, row: row, column: left + 2 + labelWidth, role: line.2, width: valueWidth)
        }
    }

    private func drawStatus(_ layout: Layout) {
        let row = layout.rows - 2
        screen.fill(row: row, column: 0, width: layout.columns, role: .status)
        if !status.isEmpty {
            screen.put(" " + status, row: row, column: 0, role: statusIsError ? .error : .status, width: layout.columns)
        }
        let hints = state.searching ? KeyMap.searchHints : KeyMap.browserHints
        screen.put(" " + TerminalText.truncate(hints, toColumns: layout.columns - 2), row: layout.rows - 1, column: 0, role: .dim)
    }
}
