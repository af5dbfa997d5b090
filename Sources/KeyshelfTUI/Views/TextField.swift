/// A one-line text input: insert at the cursor, Backspace (Ctrl-H) / Delete remove one
/// whole grapheme, Left/Right, Home/End (Ctrl-A/Ctrl-E), Ctrl-W deletes the word
/// before the cursor, Ctrl-U clears.
///
/// Not for secrets: a `String` cannot be wiped. Passwords use `SecretField`.
public struct TextField: Equatable, Sendable {
    public private(set) var text: String
    /// Cursor position in graphemes, 0...`text.count`.
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
            // A combining mark typed after a letter joins its grapheme: place the
            // cursor after what was typed, counted in the edited text.
            var before = String(text.prefix(cursor))
            before.append(c)
            replace(with: before + text.dropFirst(cursor), cursor: before.count)
        case .backspace:
            guard cursor > 0 else { return true }
            replace(with: String(text.prefix(cursor - 1) + text.dropFirst(cursor)), cursor: cursor - 1)
        case .delete:
            guard cursor < text.count else { return true }
            replace(with: String(text.prefix(cursor) + text.dropFirst(cursor + 1)), cursor: cursor)
        case .left: cursor = max(0, cursor - 1)
        case .right: cursor = min(text.count, cursor + 1)
        case .home, .control("a"): cursor = 0
        case .end, .control("e"): cursor = text.count
        case .control("w"):
            let before = text.prefix(cursor)
            let trimmed = before.reversed().drop { $0 == " " }
            let start = trimmed.count - trimmed.prefix { $0 != " " }.count
            replace(with: String(before.prefix(start) + text.dropFirst(cursor)), cursor: start)
        case .control("u"):
            replace(with: "", cursor: 0)
        default: return false
        }
        return true
    }

    /// Inserts a line break at the cursor (a multi-line field's Enter); it is
    /// drawn as a visible symbol, like every control character.
    public mutating func insertLineBreak() {
        let before = String(text.prefix(cursor)) + "\n"
        replace(with: before + text.dropFirst(cursor), cursor: before.count)
    }

    /// Sets the text and the cursor together, so neither is clamped against the other's old value.
    private mutating func replace(with newText: String, cursor newCursor: Int) {
        text = newText
        cursor = max(0, min(newCursor, newText.count))
    }

    /// Draws the field in `width` columns with `role`, scrolled so the cursor is
    /// visible, and returns the cursor's screen column. Text cut at either end
    /// shows `…` there.
    @discardableResult
    public func draw(on screen: Screen, row: Int, column: Int, width: Int, role: Role = .input) -> Int {
        screen.fill(row: row, column: column, width: width, role: role)
        guard width > 0 else { return column }
        var before = TerminalText.sanitize(String(text.prefix(cursor)))
        let after = TerminalText.sanitize(String(text.dropFirst(cursor)))
        // Keep the cursor's cell and, when text follows, the cell of the `…` after it.
        let room = after.isEmpty ? width - 1 : width - 2
        if TerminalText.columns(before) > room {
            before = TerminalText.truncate(before, toColumns: max(1, room), keeping: .end)
        }
        screen.put(before + after, row: row, column: column, role: role, width: width)
        return column + min(TerminalText.columns(before), width - 1)
    }
}
