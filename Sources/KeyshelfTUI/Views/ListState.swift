/// Selection and scroll position of a list view; pure state, drawn by the owner.
public struct ListState: Equatable, Sendable {
    /// Index of the selected row; 0 when the list is empty.
    public private(set) var selected = 0
    /// Index of the first visible row.
    public private(set) var top = 0
    public private(set) var count = 0

    public init(count: Int = 0) { self.count = count }

    /// Sets the number of rows, keeping the selection in range.
    public mutating func setCount(_ newCount: Int) {
        count = newCount
        selected = min(selected, max(0, count - 1))
        top = min(top, selected)
    }

    /// Selects `index` (clamped).
    public mutating func select(_ index: Int) {
        selected = max(0, min(index, count - 1))
    }

    /// Moves the selection by `delta` rows (clamped at both ends).
    public mutating func move(by delta: Int) { select(selected + delta) }

    /// Scrolls so the selection is inside a window of `height` rows.
    public mutating func scrollToSelection(height: Int) {
        guard height > 0 else { return }
        if selected < top { top = selected }
        if selected >= top + height { top = selected - height + 1 }
        top = max(0, min(top, max(0, count - height)))
    }

    /// Handles the list keys: j/k, arrows, PageUp/PageDown, Home/End, g/G not bound (g generates).
    /// - Returns: true when the key moved (or tried to move) the selection.
    public mutating func handle(_ key: Key, pageHeight: Int) -> Bool {
        switch key {
        case .down, .character("j"): move(by: 1)
        case .up, .character("k"): move(by: -1)
        case .pageDown, .control("f"): move(by: max(1, pageHeight - 1))
        case .pageUp, .control("b"): move(by: -max(1, pageHeight - 1))
        case .home: select(0)
        case .end: select(count - 1)
        default: return false
        }
        return true
    }
}
