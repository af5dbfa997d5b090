/// Draws frames with box-drawing characters.
enum Box {
    /// A frame around the rectangle (`row`, `column`, `height`, `width`), with an optional title in the top edge.
    static func draw(on screen: Screen, row: Int, column: Int, height: Int, width: Int, title: String = "", role: Role = .border, titleRole: Role = .accent) {
        guard height >= 2, width >= 2 else { return }
        let inner = String(repeating: "─", count: width - 2)
        screen.put("┌" + inner + "┐", row: row, column: column, role: role, width: width)
        for r in (row + 1)..<(row + height - 1) {
            screen.put("│", row: r, column: column, role: role, width: 1)
            screen.put("│", row: r, column: column + width - 1, role: role, width: 1)
        }
        screen.put("└" + inner + "┘", row: row + height - 1, column: column, role: role, width: width)
        if !title.isEmpty, width > 6 {
            let text = " " + TerminalText.truncate(TerminalText.sanitize(title), toColumns: width - 6) + " "
            screen.put(text, row: row, column: column + 2, role: titleRole, width: width - 4)
        }
    }

    /// Blanks the inside of a rectangle with `role`.
    static func fill(on screen: Screen, row: Int, column: Int, height: Int, width: Int, role: Role) {
        guard height > 0 else { return }
        for r in row..<(row + height) { screen.fill(row: r, column: column, width: width, role: role) }
    }
}
