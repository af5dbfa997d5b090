/// A terminal size in cells.
public struct Size: Equatable, Sendable {
    public var rows: Int
    public var columns: Int
    public init(rows: Int, columns: Int) {
        self.rows = rows
        self.columns = columns
    }
}

/// The drawing surface views paint on; only the curses implementation talks to a terminal.
///
/// Coordinates are zero-based cells (row, column). `put` sanitises its text
/// and cuts it with `…` where it does not fit (`TerminalText.truncate`), so no
/// caller can send a control character to the terminal, write past the right
/// edge, or cut text without showing that it did.
public protocol Screen: AnyObject {
    /// Current size in cells; changes after a `.resize` key.
    var size: Size { get }
    /// Draws `text` at (`row`, `column`) with `role`, sanitised first and cut
    /// with `…` to `width` columns (or to the right edge when nil).
    func put(_ text: String, row: Int, column: Int, role: Role, width: Int?)
    /// Fills `width` cells from (`row`, `column`) with spaces in `role`.
    func fill(row: Int, column: Int, width: Int, role: Role)
    /// Blanks the whole screen in the `normal` role.
    func clear()
    /// Shows what was drawn since the last refresh.
    func refresh()
    /// Places the visible cursor (for text fields); nil hides it.
    func setCursor(row: Int, column: Int, visible: Bool)
    /// The next key, or nil when `timeout` (seconds) passed without one.
    func readKey(timeout: Double) -> Key?
}

extension Screen {
    /// Draws `text`, cut with `…` at the right edge of the screen.
    public func put(_ text: String, row: Int, column: Int, role: Role = .normal) {
        put(text, row: row, column: column, role: role, width: nil)
    }

    /// Draws `text` padded with spaces (or truncated with an ellipsis) to exactly `width` columns.
    public func putPadded(_ text: String, row: Int, column: Int, width: Int, role: Role) {
        guard width > 0 else { return }
        let clipped = TerminalText.truncate(TerminalText.sanitize(text), toColumns: width)
        let pad = width - TerminalText.columns(clipped)
        put(clipped + String(repeating: " ", count: max(0, pad)), row: row, column: column, role: role, width: width)
    }
}
