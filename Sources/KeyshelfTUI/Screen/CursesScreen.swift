import CCurses
import Foundation

/// The `Screen` on a real terminal through ncursesw; the only curses user in keyshelf.
///
/// Colours: one colour pair per `Role`, degraded to the terminal's colour
/// count (256 → 16 → 8); with `NO_COLOR` set or a terminal without colour,
/// only the monochrome attributes are used (DESIGN §7).
public final class CursesScreen: Screen {
    private var roleAttributes: [Role: (attr: attr_t, pair: Int16)] = [:]
    private var cursor: (row: Int, column: Int)?
    private var stopped = false

    /// Checks that `$TERM` names a terminal curses can drive, before anything
    /// costly (unlocking) happens: `initscr` would print its own error and
    /// exit 1 on an unknown type, and a type without cursor addressing (`dumb`)
    /// leaves a blank screen.
    /// - Returns: nil when the terminal is usable, else the sentence to print.
    static func terminalProblem(environment: [String: String]) -> String? {
        let name = environment["TERM"] ?? ""
        var status: Int32 = 0
        let usable = !name.isEmpty && setupterm(name, STDOUT_FILENO, &status) == OK && status == 1
            && hasCursorAddressing()
        guard !usable else { return nil }
        return "the terminal type \"\(TerminalText.sanitize(name))\" is unknown or cannot move the cursor; set TERM to e.g. xterm-256color"
    }

    /// Whether the terminal loaded by `setupterm` has `cup`; `tigetstr` answers
    /// nil when absent and (char *)-1 when `cup` is not a string capability.
    private static func hasCursorAddressing() -> Bool {
        guard let cup = tigetstr("cup") else { return false }
        return Int(bitPattern: cup) != -1
    }

    /// Starts curses on the controlling terminal: UTF-8 locale, raw mode, no
    /// echo, keypad keys decoded, 25 ms Esc delay, hidden cursor.
    /// - Parameter theme: the theme for colour terminals.
    /// - Parameter useColor: false for `NO_COLOR`.
    public init(theme: Theme, useColor: Bool) {
        ensureUTF8Locale()
        // curses learns of resizes through SIGWINCH; a parent may have left it blocked or ignored.
        var winch = sigset_t()
        sigemptyset(&winch)
        sigaddset(&winch, SIGWINCH)
        sigprocmask(SIG_UNBLOCK, &winch, nil)
        signal(SIGWINCH, SIG_DFL)
        set_escdelay(25)
        initscr()
        raw()
        noecho()
        nonl()
        keypad(keyshelf_stdscr(), true)
        curs_set(0)
        let colorful = useColor && has_colors()
        if colorful {
            start_color()
            use_default_colors()
        }
        apply(theme: colorful ? theme : .monochrome, colorful: colorful)
    }

    private func apply(theme: Theme, colorful: Bool) {
        let colors = Int(keyshelf_colors())
        for (index, role) in Role.allCases.enumerated() {
            let style = theme.style(for: role)
            var attr = keyshelf_a_normal()
            if style.attributes.contains(.bold) { attr |= keyshelf_a_bold() }
            if style.attributes.contains(.underline) { attr |= keyshelf_a_underline() }
            if style.attributes.contains(.reverse) { attr |= keyshelf_a_reverse() }
            if style.attributes.contains(.dim) { attr |= keyshelf_a_dim() }
            var pair: Int16 = 0
            if colorful, index + 1 < Int(keyshelf_color_pairs()) {
                pair = Int16(index + 1)
                var foreground = curses(style.foreground, colors: colors)
                let background = curses(style.background, colors: colors)
                // Two colours that degrade to one would hide the text.
                if foreground == background && foreground >= 0 { foreground = -1 }
                init_pair(pair, foreground, background)
            }
            roleAttributes[role] = (attr, pair)
        }
    }

    private func curses(_ color: Color, colors: Int) -> Int16 {
        switch color.degraded(toColors: colors) {
        case .terminalDefault: -1
        case .index(let n): Int16(n)
        }
    }

    public var size: Size {
        let win = keyshelf_stdscr()
        return Size(rows: Int(getmaxy(win)), columns: Int(getmaxx(win)))
    }

    public func put(_ text: String, row: Int, column: Int, role: Role, width: Int?) {
        let current = size
        guard row >= 0, row < current.rows, column >= 0, column < current.columns else { return }
        let limit = min(width ?? Int.max, current.columns - column)
        let clipped = TerminalText.truncate(TerminalText.sanitize(text), toColumns: limit)
        guard !clipped.isEmpty else { return }
        setRole(role)
        var wide = clipped.unicodeScalars.map { wchar_t(bitPattern: $0.value) }
        wide.append(0)
        // Writing the bottom-right cell reports ERR (the cursor cannot advance); the cell is written.
        _ = mvwaddnwstr(keyshelf_stdscr(), Int32(row), Int32(column), wide, Int32(wide.count - 1))
    }

    public func fill(row: Int, column: Int, width: Int, role: Role) {
        guard width > 0 else { return }
        put(String(repeating: " ", count: width), row: row, column: column, role: role, width: width)
    }

    private func setRole(_ role: Role) {
        let (attr, pair) = roleAttributes[role] ?? (keyshelf_a_normal(), 0)
        wattr_set(keyshelf_stdscr(), attr, pair, nil)
    }

    public func clear() {
        setRole(.normal)
        wbkgdset(keyshelf_stdscr(), chtype(keyshelf_color_pair(Int32(roleAttributes[.normal]?.pair ?? 0))))
        werase(keyshelf_stdscr())
    }

    public func refresh() {
        if let cursor {
            curs_set(1)
            wmove(keyshelf_stdscr(), Int32(cursor.row), Int32(cursor.column))
        } else {
            curs_set(0)
        }
        wrefresh(keyshelf_stdscr())
    }

    public func setCursor(row: Int, column: Int, visible: Bool) {
        cursor = visible ? (row, column) : nil
    }

    public func readKey(timeout: Double) -> Key? {
        let win = keyshelf_stdscr()
        wtimeout(win, Int32(max(0, min(timeout, 3600)) * 1000))
        var value: wint_t = 0
        let result = wget_wch(win, &value)
        switch result {
        case OK where value == 0x1A:
            suspend()
            return .resize
        case OK where value == 0x1B:
            return readEscapeSequence(win)
        case OK: return Key(wideCharacter: UInt32(value))
        case KEY_CODE_YES: return CursesScreen.key(code: Int32(value))
        default: return nil
        }
    }

    /// After an Esc: a lone Esc is `.escape`; the bytes of a sequence curses
    /// did not decode are already waiting (curses waited ESCDELAY for them),
    /// so they are read without waiting and decoded whole (`EscapeSequence`).
    private func readEscapeSequence(_ win: UnsafeMutablePointer<WINDOW>?) -> Key {
        wtimeout(win, 0)
        var tail: [UInt32] = []
        var value: wint_t = 0
        while !EscapeSequence.isComplete(tail), wget_wch(win, &value) == OK {
            tail.append(UInt32(value))
        }
        return tail.isEmpty ? .escape : EscapeSequence.key(for: tail)
    }

    /// Ctrl-Z: raw mode keeps the terminal from stopping the process, so do
    /// what it would have done (as vim does): restore the terminal, stop with
    /// SIGTSTP's default action, and on SIGCONT (`fg`) go back to curses mode.
    /// The vault stays as it was (unlocked or not); the caller redraws on the
    /// `.resize` that `readKey` returns, and curses repaints every cell after `endwin`.
    private func suspend() {
        curs_set(1)
        endwin()
        let previous = signal(SIGTSTP, SIG_DFL)
        var tstp = sigset_t()
        sigemptyset(&tstp)
        sigaddset(&tstp, SIGTSTP)
        sigprocmask(SIG_UNBLOCK, &tstp, nil)
        raise(SIGTSTP)
        signal(SIGTSTP, previous)
        wrefresh(keyshelf_stdscr())
    }

    static func key(code: Int32) -> Key {
        switch code {
        case KEY_UP: .up
        case KEY_DOWN: .down
        case KEY_LEFT: .left
        case KEY_RIGHT: .right
        case KEY_PPAGE: .pageUp
        case KEY_NPAGE: .pageDown
        case KEY_HOME: .home
        case KEY_END: .end
        case KEY_ENTER: .enter
        case KEY_BACKSPACE: .backspace
        case KEY_DC: .delete
        case KEY_BTAB: .backTab
        case KEY_RESIZE: .resize
        default: .other(code)
        }
    }

    /// Ends curses and restores the terminal (cooked mode, cursor, main screen). Safe to call twice.
    public func stop() {
        guard !stopped else { return }
        stopped = true
        curs_set(1)
        endwin()
    }

    deinit { stop() }
}

