/// One key press as the TUI sees it, decoded from curses' `get_wch`.
public enum Key: Equatable, Sendable {
    /// A printable character (already a whole grapheme when it came as one).
    case character(Character)
    /// Ctrl plus a letter, e.g. `.control("c")` for Ctrl-C (byte 0x03 in raw mode).
    case control(Character)
    case up, down, left, right
    case pageUp, pageDown, home, end
    case enter, tab, backTab, escape, backspace, delete
    /// The terminal changed size (`KEY_RESIZE`).
    case resize
    /// No more input: the terminal hung up, or a test ran out of scripted keys.
    case closed
    /// A function or unknown key code the TUI does not use.
    case other(Int32)
}

extension Key {
    /// The key for a wide character read by `get_wch` returning `OK`.
    ///
    /// Raw mode delivers Enter as CR, Tab as HT, Esc as 0x1B, Backspace as DEL or BS.
    public init(wideCharacter value: UInt32) {
        switch value {
        case 0x0D, 0x0A: self = .enter
        case 0x09: self = .tab
        case 0x1B: self = .escape
        case 0x7F, 0x08: self = .backspace
        case 0x01...0x1A: self = .control(Character(Unicode.Scalar(value + 0x60)!))
        case 0x00, 0x1C...0x1F, 0x80...0x9F: self = .other(Int32(value))
        default:
            if let scalar = Unicode.Scalar(value) {
                self = .character(Character(scalar))
            } else {
                self = .other(Int32(bitPattern: value))
            }
        }
    }
}

extension Key {
    /// Whether `character` holds a C0 or C1 control or DEL, which a field never accepts.
    static func isControl(_ character: Character) -> Bool {
        character.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }
    }
}
