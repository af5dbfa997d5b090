/// A one-line text input: insert at the cursor, Backspace/Delete, Left/Right, Home/End, Ctrl-U clears.
///
/// Not for secrets: a `String` cannot be wiped. Passwords use `SecretField`.
public struct TextField: Equatable, Sendable {
    public var text: String {
        didSet { cursor = min(cursor, text.count) }
    }
    /// Cursor position in graphemes.
    public private(set) var cursor: Int

    public init(_ text: String = "") {
        self.text = text
        cursor = text.count
    }

    /// Applies an editing key; returns false for keys a field does not use (Tab, Enter, Esc, arrows up/down).
    public mutating func handle(_ key: Key) -> Bool {
        switch key {
        case .character(let c):
            guard !Key.isControl(c) else { return true }
            let index = text.index(text.startIndex, offsetBy: cursor)
            text.insert(c, at: index)
            cursor += 1
        case .backspace:
            guard cursor > 0 else { return true }
            text.remove(at: text.index(text.startIndex, offsetBy: cursor - 1))
            cursor -= 1
        case .delete:
            guard cursor < text.count else { return true }
            text.remove(at: text.index(text.startIndex, offsetBy: cursor))
        case .left: cursor = max(0, cursor - 1)
        case .right: cursor = min(text.count, cursor + 1)
        case .home, .control("a"): cursor = 0
        case .end, .control("e"): cursor = text.count
        case .control("u"):
            text = ""
            cursor = 0
        default: return false
        }
        return true
    }

    /// Draws the field in `width` columns with `role`, scrolled so the cursor is visible,
    /// and returns the cursor's screen column.
    @discardableResult
    public func draw(on screen: Screen, row: Int, column: Int, width: Int, role: Role = .input) -> Int {
        screen.fill(row: row, column: column, width: width, role: role)
        let safe = TerminalText.sanitize(text)
        let before = String(safe.prefix(cursor))
        var visible = safe
        var cursorColumn = TerminalText.columns(before)
        if cursorColumn >= width {
            // Show the tail that ends at the cursor.
            var tail = ""
            var used = 0
            for c in before.reversed() {
                let w = TerminalText.columns(c)
                if used + w >= width { break }
                tail.insert(c, at: tail.startIndex)
                used += w
            }
            visible = tail
            cursorColumn = used
        }
        screen.put(visible, row: row, column: column, role: role, width: width)
        return column + min(cursorColumn, max(0, width - 1))
    }
}
