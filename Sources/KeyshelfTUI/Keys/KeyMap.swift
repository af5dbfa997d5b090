/// What a key does in the browser (DESIGN §7); `ShelfApp.handle` runs it.
public enum BrowserAction: Equatable, Sendable, CaseIterable {
    case move, scroll, switchPane, focusDomains, focusAccounts, open, search, dismiss
    case add, edit, delete, generate, importFile
    case copyPassword, copyAccount, copyOneTimeCode, reveal
    case login, security, lock, help, quit
}

/// What a key does while the search field has focus.
public enum SearchAction: Equatable, Sendable, CaseIterable {
    /// Close the field and show every domain again.
    case clear
    /// Close the field and keep the filter.
    case keep
    /// Move the domain selection without leaving the field.
    case move
    case quit
}

/// One row of a key table: the keys, what they do, and how `?` and the hint bar name them.
public struct KeyBinding<Action: Equatable & Sendable>: Sendable {
    /// The action run for any of `keys`.
    public var action: Action
    /// Every key bound to `action`.
    public var keys: [Key]
    /// The key column of the `?` help, e.g. "j k ↑ ↓" (may name fewer keys than `keys`).
    public var label: String
    /// The description in `?`; nil keeps the binding out of the help.
    public var help: String?
    /// The hint bar's words, e.g. "a add"; nil keeps the binding off the bar.
    public var hint: String?

    /// - Parameters: see the properties; `help` and `hint` nil keep the binding out of `?` and the bar.
    public init(_ action: Action, _ keys: [Key], label: String, help: String? = nil, hint: String? = nil) {
        self.action = action
        self.keys = keys
        self.label = label
        self.help = help
        self.hint = hint
    }
}

/// The key tables of the browser and its search field: the one place a key is
/// bound. `ShelfApp.handle` looks keys up here, `?` lists `browser`'s help
/// texts, and the bottom line joins the hints in `browserHintOrder`;
/// docs/tui.md's key table is checked against it (KeyMapTests).
public enum KeyMap {
    public typealias Browser = KeyBinding<BrowserAction>

    /// The browser's bindings, in the order `?` lists them.
    public static let browser: [Browser] = [
        Browser(.move, [Key.character("j"), Key.character("k"), .up, .down], label: "j k ↑ ↓", help: "move"),
        Browser(.scroll, [.pageUp, .pageDown, .home, .end, Key.control("b"), Key.control("f")],
                label: "PgUp PgDn Home End", help: "scroll a page, to the top, to the end (also Ctrl-B Ctrl-F)"),
        Browser(.switchPane, [.tab, .backTab], label: "Tab h l ← →", help: "switch pane", hint: "Tab pane"),
        // In `?` on the line above: one line for the three ways to change pane.
        Browser(.focusDomains, [Key.character("h"), .left], label: "h ←"),
        Browser(.focusAccounts, [Key.character("l"), .right], label: "l →"),
        Browser(.open, [.enter], label: "Enter", help: "open the detail"),
        Browser(.search, [Key.character("/")], label: "/", help: "search (Esc clears)", hint: "/ search"),
        Browser(.add, [Key.character("a")], label: "a", help: "add a credential", hint: "a add"),
        Browser(.edit, [Key.character("e")], label: "e", help: "edit the selected account", hint: "e edit"),
        Browser(.delete, [Key.character("d")], label: "d", help: "delete (asks first)", hint: "d delete"),
        Browser(.generate, [Key.character("g")], label: "g", help: "generate a password", hint: "g generate"),
        Browser(.importFile, [Key.character("i")], label: "i", help: "import from a browser or password manager", hint: "i import"),
        Browser(.copyPassword, [Key.character("c")], label: "c", help: "copy the password", hint: "c copy"),
        Browser(.copyAccount, [Key.character("u")], label: "u", help: "copy the account", hint: "u user"),
        Browser(.copyOneTimeCode, [Key.character("o")], label: "o",
                help: "copy the one-time code (HOTP: make the next)", hint: "o code"),
        Browser(.reveal, [Key.character("r")], label: "r", help: "reveal the password", hint: "r reveal"),
        Browser(.login, [Key.character("L")], label: "L", help: "login flow for the domain", hint: "L login"),
        Browser(.security, [Key.character("S")], label: "S", help: "security recommendations"),
        Browser(.lock, [Key.character("X")], label: "X", help: "lock now", hint: "X lock"),
        Browser(.help, [Key.character("?")], label: "?", help: "this help", hint: "? help"),
        Browser(.quit, [Key.character("q"), Key.control("c")], label: "q Ctrl-C", help: "quit", hint: "q quit"),
        // Not in `?`: Esc means "back out" everywhere, and the help is itself closed with it.
        Browser(.dismiss, [.escape], label: "Esc"),
    ]

    /// The order of the hint bar: the most used keys first, so a narrow
    /// terminal cuts the rarest. Names every binding of `browser` with a hint once.
    public static let browserHintOrder: [BrowserAction] = [
        .help, .quit, .search, .add, .edit, .delete, .generate, .copyPassword, .copyAccount,
        .copyOneTimeCode, .reveal, .login, .importFile, .lock, .switchPane,
    ]

    /// Keys `?` lists after the browser's that this table does not bind:
    /// Ctrl-Z reaches no key table, `CursesScreen.readKey` suspends on it.
    public static let screenHelpRows: [(keys: String, help: String)] = [
        ("Ctrl-Z", "suspend to the shell (fg resumes; the vault stays unlocked)"),
    ]

    /// The search field's bindings; every other key edits the text.
    public static let search: [KeyBinding<SearchAction>] = [
        KeyBinding<SearchAction>(.keep, [.enter], label: "Enter", help: "keep the filter", hint: "Enter keep"),
        KeyBinding<SearchAction>(.clear, [.escape], label: "Esc", help: "clear the search", hint: "Esc clear"),
        KeyBinding<SearchAction>(.move, [.up, .down], label: "↑ ↓", help: "move among the matches"),
        KeyBinding<SearchAction>(.quit, [Key.control("c")], label: "Ctrl-C", help: "quit"),
    ]

    /// The browser action bound to `key`, if any.
    public static func browserAction(for key: Key) -> BrowserAction? {
        browser.first { $0.keys.contains(key) }?.action
    }

    /// The search action bound to `key`; nil means the key edits the search text.
    public static func searchAction(for key: Key) -> SearchAction? {
        search.first { $0.keys.contains(key) }?.action
    }

    /// The `?` help: (key column, description) for each browser binding with help.
    public static var helpRows: [(keys: String, help: String)] {
        browser.compactMap { binding in binding.help.map { (binding.label, $0) } }
    }

    /// The browser's bottom line, e.g. "? help · q quit · / search · …".
    public static var browserHints: String {
        browserHintOrder.compactMap { action in browser.first { $0.action == action }?.hint }.joined(separator: " · ")
    }

    /// The bottom line while the search field has focus.
    public static var searchHints: String {
        (["type to filter"] + search.compactMap(\.hint)).joined(separator: " · ")
    }
}
