/// Decodes what follows an Esc that curses did not recognise as a key.
///
/// curses maps only the sequences the terminfo entry names (`khome`, `kend`,
/// …). Terminals often send others for the same keys (`ESC [ 1 ~` for Home in
/// tmux, PuTTY and rxvt under `TERM=xterm-256color`); read byte by byte they
/// would look like Esc followed by text, and Esc closes dialogs or quits the
/// unlock screen while the rest of the keys fall through. So a sequence is
/// read whole: a few well-known ones become keys, everything else is ignored.
enum EscapeSequence {
    /// Longest sequence consumed; a longer run of bytes is not a key sequence.
    static let maximumLength = 32

    /// Whether `tail` (the characters after Esc read so far) is complete: a CSI
    /// (`[`) ends with a final byte 0x40–0x7E, an SS3 (`O`) after one more
    /// character, anything else (Alt plus a key) at once.
    static func isComplete(_ tail: [UInt32]) -> Bool {
        guard let first = tail.first else { return false }
        switch first {
        case UInt32(UInt8(ascii: "[")):
            guard tail.count >= 2, let last = tail.last else { return false }
            return (0x40...0x7E).contains(last) || tail.count >= maximumLength
        case UInt32(UInt8(ascii: "O")):
            return tail.count >= 2
        default:
            return true
        }
    }

    /// The key a complete `tail` stands for; `.other(0)` for any sequence the
    /// TUI does not use, which every view ignores.
    static func key(for tail: [UInt32]) -> Key {
        let text = String(String.UnicodeScalarView(tail.compactMap(Unicode.Scalar.init)))
        switch text {
        case "[1~", "[7~", "[H", "OH": return .home
        case "[4~", "[8~", "[F", "OF": return .end
        case "[A", "OA": return .up
        case "[B", "OB": return .down
        case "[C", "OC": return .right
        case "[D", "OD": return .left
        case "[5~": return .pageUp
        case "[6~": return .pageDown
        case "[3~": return .delete
        case "[Z": return .backTab
        default: return .other(0)
        }
    }
}
