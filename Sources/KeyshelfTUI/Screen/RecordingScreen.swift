/// A `Screen` that records cells in memory, for tests and benchmarks.
///
/// Wide characters take two cells (the second left empty), combining marks
/// join the cell before them, as a terminal shows them. Keys come from a queue.
public final class RecordingScreen: Screen {
    /// One cell: the grapheme shown there ("" for the right half of a wide character) and its role.
    public struct Cell: Equatable {
        public var text: String
        public var role: Role
    }

    public private(set) var size: Size
    public private(set) var cells: [[Cell]]
    /// Keys `readKey` returns, first to last (nil acts as a timeout); then it returns `.closed`.
    public var pendingKeys: [Key?] = []
    /// Number of `refresh` calls (frames shown).
    public private(set) var refreshCount = 0
    public private(set) var cursor: (row: Int, column: Int)?

    public init(rows: Int = 30, columns: Int = 100) {
        size = Size(rows: rows, columns: columns)
        cells = Array(repeating: Array(repeating: Cell(text: " ", role: .normal), count: columns), count: rows)
    }

    /// Changes the size, as a terminal resize would; the content is blanked.
    public func resize(rows: Int, columns: Int) {
        size = Size(rows: rows, columns: columns)
        clear()
    }

    public func put(_ text: String, row: Int, column: Int, role: Role, width: Int?) {
        guard row >= 0, row < size.rows, column >= 0, column < size.columns else { return }
        let limit = min(width ?? Int.max, size.columns - column)
        var col = column
        for character in TerminalText.truncate(TerminalText.sanitize(text), toColumns: limit) {
            let w = TerminalText.columns(character)
            if w == 0 {
                if col > column { cells[row][col - 1].text.append(character) }
                continue
            }
            cells[row][col] = Cell(text: String(character), role: role)
            for extra in 1..<max(w, 1) { cells[row][col + extra] = Cell(text: "", role: role) }
            col += w
        }
    }

    public func fill(row: Int, column: Int, width: Int, role: Role) {
        guard row >= 0, row < size.rows, column < size.columns else { return }
        for col in max(0, column)..<min(size.columns, column + width) { cells[row][col] = Cell(text: " ", role: role) }
    }

    public func clear() {
        cells = Array(repeating: Array(repeating: Cell(text: " ", role: .normal), count: size.columns), count: size.rows)
    }

    /// When true, `refresh` appends the screen's text to `frames` (for tests that look at a dialog that has since closed).
    public var keepsFrames = false
    public private(set) var frames: [String] = []

    public func refresh() {
        refreshCount += 1
        if keepsFrames { frames.append(text) }
    }

    public func setCursor(row: Int, column: Int, visible: Bool) {
        cursor = visible ? (row, column) : nil
    }

    public func readKey(timeout: Double) -> Key? {
        pendingKeys.isEmpty ? Key.closed : pendingKeys.removeFirst()
    }

    /// The text of each row, trailing spaces removed.
    public var lines: [String] {
        cells.map { row in
            var line = row.map(\.text).joined()
            while line.last == " " { line.removeLast() }
            return line
        }
    }

    /// All rows joined by newlines.
    public var text: String { lines.joined(separator: "\n") }

    /// The role of the cell at (`row`, `column`).
    public func role(row: Int, column: Int) -> Role { cells[row][column].role }
}
