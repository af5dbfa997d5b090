/// The "terminal too small" message, fitted to whatever room there is.
///
/// The needed size is the point of the message, so it must survive even a
/// 12×3 window: the full three-line text is wrapped to the width; when that
/// does not fit the height, the hint goes; then a short form
/// "Too small: 20×5 < 60×16" is wrapped (cut with `…` only when even that
/// cannot fit).
enum TooSmallNotice {
    /// The lines to draw for a `size` screen that is below `minimum`; `hint`
    /// says how to leave (it differs between the unlock screen and the browser).
    static func lines(size: Size, minimum: Size, hint: String) -> [String] {
        let width = max(1, size.columns)
        let rows = max(1, size.rows)
        let actual = "\(size.columns)×\(size.rows)"
        let needed = "\(minimum.columns)×\(minimum.rows)"
        let full = ["Terminal too small", "\(actual); keyshelf needs \(needed)", hint]
        for paragraphs in [full, Array(full.prefix(2))] {
            let wrapped = paragraphs.flatMap { TerminalText.wrap($0, width: width) }
            if wrapped.count <= rows, wrapped.allSatisfy({ TerminalText.columns($0) <= width }) { return wrapped }
        }
        return TerminalText.wrap("Too small: \(actual) < \(needed)", width: width, maxLines: rows)
    }

    /// Draws the notice centred on `screen`, its first line in the `error` role.
    static func draw(on screen: Screen, minimum: Size, hint: String) {
        let size = screen.size
        let lines = lines(size: size, minimum: minimum, hint: hint)
        let top = max(0, (size.rows - lines.count) / 2)
        for (i, line) in lines.enumerated() {
            let w = TerminalText.columns(line)
            screen.put(line, row: top + i, column: max(0, (size.columns - w) / 2), role: i == 0 ? .error : .normal)
        }
    }
}
