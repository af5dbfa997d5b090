/// A modal dialog with a title, a message and a row of buttons (DESIGN §5).
///
/// The safe button comes first and has focus when the dialog opens, so an
/// Enter pressed by habit never takes the destructive choice. Tab, arrows and
/// h/l move focus; Enter or Space activates; Esc and `n` decline. A message
/// taller than the screen scrolls with ↑ ↓ `j` `k`, PgUp PgDn, Home End.
public struct Dialog: Equatable, Sendable {
    /// What the user did with the dialog.
    public enum Outcome: Equatable, Sendable {
        /// The button at this index was activated.
        case activated(Int)
        /// Esc or `n`: the safe answer.
        case declined
    }

    public var title: String
    public var message: String
    /// Button labels, safe one first.
    public var buttons: [String]
    /// Indexes of destructive buttons (drawn in the danger role).
    public var destructive: Set<Int>
    /// Wanted width in columns (e.g. for a report with long lines); clipped to
    /// the screen, never narrower than the title and buttons need. nil: 46.
    public var width: Int?
    /// Columns by which the lines a message line wraps onto are indented (e.g. to
    /// keep a description under its column in a two-column list); 0 by default.
    public var hangingIndent = 0
    /// Index of the focused button; starts at 0, the safe one.
    public private(set) var focus = 0
    /// Index of the first message line shown when the message is taller than the dialog.
    public private(set) var scroll = 0

    public init(title: String, message: String, buttons: [String], destructive: Set<Int> = []) {
        precondition(!buttons.isEmpty, "a dialog needs a button")
        self.title = title
        self.message = message
        self.buttons = buttons
        self.destructive = destructive
    }

    /// Applies a key; returns the outcome when the dialog is done, nil while it stays open.
    /// - Parameter size: the screen the dialog is drawn on, which decides how far
    ///   the message scrolls; without it the scrolling keys do nothing.
    public mutating func handle(_ key: Key, size: Size? = nil) -> Outcome? {
        switch key {
        case .tab, .right, .character("l"):
            focus = (focus + 1) % buttons.count
        case .backTab, .left, .character("h"):
            focus = (focus + buttons.count - 1) % buttons.count
        case .enter, .character(" "):
            return .activated(focus)
        case .escape, .character("n"), .character("N"):
            return .declined
        case .down, .character("j"), .up, .character("k"), .pageDown, .pageUp, .home, .end:
            if let size { scroll(key, in: layout(in: size)) }
        default:
            break
        }
        return nil
    }

    private mutating func scroll(_ key: Key, in layout: Layout) {
        let last = layout.body.count - layout.shown
        let page = max(1, layout.shown - 1)
        switch key {
        case .down, .character("j"): scroll += 1
        case .up, .character("k"): scroll -= 1
        case .pageDown: scroll += page
        case .pageUp: scroll -= page
        case .home: scroll = 0
        default: scroll = last
        }
        scroll = max(0, min(scroll, last))
    }

    /// Where the dialog goes on a screen of `size`, and its wrapped message.
    private struct Layout {
        var top: Int
        var left: Int
        var width: Int
        var height: Int
        var body: [String]
        /// Message lines that fit.
        var shown: Int
    }

    private func layout(in size: Size) -> Layout {
        let buttonRow = buttons.map { "[ \($0) ]" }.joined(separator: "  ")
        let wanted = max(width ?? 46, TerminalText.columns(TerminalText.sanitize(title)) + 6, TerminalText.columns(buttonRow) + 4)
        let width = min(size.columns - 2, wanted)
        let body = TerminalText.wrap(message, width: width - 4, hangingIndent: hangingIndent)
        let shown = min(body.count, max(1, size.rows - 6))
        let height = shown + 5
        return Layout(top: max(0, (size.rows - height) / 2), left: max(0, (size.columns - width) / 2),
                      width: width, height: height, body: body, shown: shown)
    }

    /// Draws the dialog centred on `screen` over whatever is there; a message
    /// taller than the dialog shows which lines are visible in the bottom border.
    public func draw(on screen: Screen) {
        let layout = layout(in: screen.size)
        let (top, left, width, height) = (layout.top, layout.left, layout.width, layout.height)
        let textWidth = width - 4
        Box.fill(on: screen, row: top, column: left, height: height, width: width, role: .dialog)
        Box.draw(on: screen, row: top, column: left, height: height, width: width, title: title, role: .dialog, titleRole: .accent)
        let first = max(0, min(scroll, layout.body.count - layout.shown))
        for (i, line) in layout.body[first..<(first + layout.shown)].enumerated() {
            screen.put(line, row: top + 2 + i, column: left + 2, role: .dialog, width: textWidth)
        }
        if layout.shown < layout.body.count {
            let position = " ↑↓ \(first + 1)–\(first + layout.shown) of \(layout.body.count) "
            let column = max(left + 1, left + width - 2 - TerminalText.columns(position))
            screen.put(position, row: top + height - 1, column: column, role: .accent, width: left + width - 1 - column)
        }
        let buttonRow = buttons.map { "[ \($0) ]" }.joined(separator: "  ")
        var column = left + max(2, (width - TerminalText.columns(buttonRow)) / 2)
        let row = top + height - 2
        for (index, label) in buttons.enumerated() {
            let text = "[ \(label) ]"
            let role: Role = index == focus ? .buttonFocused : (destructive.contains(index) ? .buttonDanger : .button)
            screen.put(text, row: row, column: column, role: role, width: max(0, left + width - 1 - column))
            column += TerminalText.columns(text) + 2
        }
    }
}
