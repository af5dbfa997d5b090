extension Key {
    /// The key as docs/tui.md and the help name it, e.g. "j", "Ctrl-C", "↑", "PgUp", "Shift-Tab".
    public var name: String {
        switch self {
        case .character(let character): String(character)
        case .control(let letter): "Ctrl-" + letter.uppercased()
        case .up: "↑"
        case .down: "↓"
        case .left: "←"
        case .right: "→"
        case .pageUp: "PgUp"
        case .pageDown: "PgDn"
        case .home: "Home"
        case .end: "End"
        case .enter: "Enter"
        case .tab: "Tab"
        case .backTab: "Shift-Tab"
        case .escape: "Esc"
        case .backspace: "Backspace"
        case .delete: "Delete"
        case .resize: "resize"
        case .closed: "end of input"
        case .other(let code): "key \(code)"
        }
    }
}
