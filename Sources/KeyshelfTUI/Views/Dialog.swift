/// A modal dialog with a title, a message and a row of buttons (DESIGN §5).
///
/// The safe button comes first and has focus when the dialog opens, so an
/// Enter pressed by habit never takes the destructive choice. Tab, arrows and
/// h/l move focus; Enter or Space activates; Esc and `n` decline.
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
    /// Index of the focused button; starts at 0, the safe one.
    public private(set) var focus = 0

    public init(title: String, message: String, buttons: [String], destructive: Set<Int> = []) {
        precondition(!buttons.isEmpty, "a dialog needs a button")
        self.title = title
        self.message = message
        self.buttons = buttons
        self.destructive = destructive
    }

    /// Applies a key; returns the outcome when the dialog is done, nil while it stays open.
    public mutating func handle(_ key: Key) -> Outcome? {
        switch key {
        case .tab, .right, .character("l"):
            focus = (focus + 1) % buttons.count
        case .backTab, .left, .character("h"):
            focus = (focus + buttons.count - 1) % buttons.count
        case .enter, .character(" "):
            return .activated(focus)
        case .escape, .character("n"), .character("N"):
            return .declined
        default:
            break
        }
        return nil
    }

    /// Draws the dialog centred on `screen` over whatever is there.
    public func draw(on screen: Screen) {
        let size = screen.size
        let buttonRow = buttons.map { "[ \($0) ]" }.joined(separator: "  ")
        let wanted = max(46, TerminalText.columns(TerminalText.sanitize(title)) + 6, TerminalText.columns(buttonRow) + 4)
        let width = min(size.columns - 2, wanted)
        let textWidth = width - 4
        let body = TerminalText.wrap(message, width: textWidth)
        let maxBody = max(1, size.rows - 6)
        let shownBody = Array(body.prefix(maxBody))
        let height = shownBody.count + 5
        let top = max(0, (size.rows - height) / 2)
        let left = max(0, (size.columns - width) / 2)
        Box.fill(on: screen, row: top, column: left, height: height, width: width, role: .dialog)
        Box.draw(on: screen, row: top, column: left, height: height, width: width, title: title, role: .dialog, titleRole: .accent)
        for (i, line) in shownBody.enumerated() {
            screen.put(line, row: top + 2 + i, column: left + 2, role: .dialog, width: textWidth)
        }
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
