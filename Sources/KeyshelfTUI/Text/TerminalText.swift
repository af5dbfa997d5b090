import Foundation
import CCurses
import KeyshelfCredentials

/// Makes untrusted text safe to draw and measures it in terminal columns.
///
/// Names, notes and accounts come from imports and synced vaults, so any of
/// them may hold escape sequences (`ESC ] 0 ; title BEL` would retitle the
/// window). Every string a `Screen` draws passes `sanitize` first (DESIGN §7).
public enum TerminalText {
    /// Symbol shown for a C1 control, a bidirectional override or another invisible format character.
    public static let replacement: Character = "\u{FFFD}"
    /// The ellipsis used when text is cut to fit.
    public static let ellipsis: Character = "…"

    /// `text` with every unsafe scalar made inert and visible.
    ///
    /// Which scalars are unsafe is the domain's one rule, `InertScalars`
    /// (controls, bidi marks, zero-width and other invisible characters, tag
    /// characters, noncharacters, blanks other than U+0020, combining marks
    /// past `InertScalars.maxStackedMarks` on one base; emoji sequences
    /// kept). Here they are drawn
    /// as symbols rather than `\u{…}` escapes:
    /// - C0 controls (U+0000–U+001F) become the matching Control Pictures
    ///   (ESC → `␛`, BEL → `␇`, LF → `␊`), DEL becomes `␡`;
    /// - every other unsafe scalar becomes U+FFFD.
    /// A scalar the rule allows but the C library calls unprintable
    /// (`wcwidth` −1) also becomes U+FFFD, as curses could not place it.
    /// The result holds only scalars with a column width ≥ 0.
    public static func sanitize(_ text: String) -> String {
        // Fast path: plain printable ASCII needs no work.
        if text.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) { return text }
        let inert = InertScalars.map(text) { String(symbol(for: $0)) }
        var out = String.UnicodeScalarView()
        for scalar in inert.unicodeScalars {
            out.append(scalar.value < 0x7F || scalarWidth(scalar) >= 0 ? scalar : "\u{FFFD}")
        }
        return String(out)
    }

    /// The visible symbol drawn for an unsafe scalar.
    private static func symbol(for scalar: Unicode.Scalar) -> Unicode.Scalar {
        switch scalar.value {
        case 0x00...0x1F: Unicode.Scalar(0x2400 + scalar.value)!
        case 0x7F: "\u{2421}"
        default: "\u{FFFD}"
        }
    }

    /// Width in columns of one scalar per `wcwidth` (−1 when unprintable).
    static func scalarWidth(_ scalar: Unicode.Scalar) -> Int {
        if scalar.value >= 0x20 && scalar.value < 0x7F { return 1 }
        UTF8Locale.ensureUTF8
        return Int(keyshelf_wcwidth(scalar.value))
    }

    /// Columns taken by one grapheme: the sum of its scalars' `wcwidth`
    /// (combining marks 0, CJK and emoji 2), as curses places it.
    public static func columns(_ character: Character) -> Int {
        var total = 0
        for scalar in character.unicodeScalars {
            total += max(0, scalarWidth(scalar))
        }
        return total
    }

    /// Columns taken by `text` (already sanitised).
    public static func columns(_ text: String) -> Int {
        if text.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) { return text.utf8.count }
        return text.reduce(0) { $0 + columns($1) }
    }

    /// Which part of a text `truncate` keeps.
    public enum Kept: Sendable {
        /// The beginning; the `…` goes at the end.
        case start
        /// The end (e.g. what a text field shows left of its cursor); the `…` goes first.
        case end
    }

    /// `text` cut to at most `limit` columns, with `…` where it was cut: the one
    /// way keyshelf shortens text (`Screen.put` cuts through it too).
    ///
    /// Cuts only between graphemes, so a wide character or a letter with its
    /// combining marks is never split; the result may be one column short
    /// when a wide character would straddle the limit.
    public static func truncate(_ text: String, toColumns limit: Int, keeping kept: Kept = .start) -> String {
        guard limit > 0 else { return "" }
        if columns(text) <= limit { return text }
        var out: [Character] = []
        var used = 0
        let budget = limit - 1
        for character in kept == .start ? Array(text) : text.reversed() {
            let w = columns(character)
            if used + w > budget { break }
            out.append(character)
            used += w
        }
        return kept == .start ? String(out) + String(ellipsis) : String(ellipsis) + String(out.reversed())
    }

    /// `text` wrapped (see `wrap`) into at most `maxLines` lines; when lines are
    /// left over, the last one kept ends in `…`.
    public static func wrap(_ text: String, width: Int, maxLines: Int) -> [String] {
        let lines = wrap(text, width: width)
        guard lines.count > maxLines, maxLines > 0 else { return lines }
        var kept = Array(lines.prefix(maxLines))
        kept[maxLines - 1] = truncate(kept[maxLines - 1] + String(ellipsis), toColumns: width)
        return kept
    }

    /// The longest prefix of `text` that fits `limit` columns, with no ellipsis.
    public static func prefix(_ text: String, columns limit: Int) -> String {
        var out = ""
        var used = 0
        for character in text {
            let w = columns(character)
            if used + w > limit { break }
            out.append(character)
            used += w
        }
        return out
    }
}

private enum UTF8Locale {
    /// `wcwidth` and curses need a UTF-8 `LC_CTYPE`; take the user's locale,
    /// falling back to C.UTF-8 when it is not UTF-8 (e.g. LANG unset in tmux).
    static let ensureUTF8: Void = {
        setlocale(LC_ALL, "")
        let codeset = String(cString: nl_langinfo(nl_item(CODESET)))
        if codeset.uppercased() != "UTF-8" {
            setlocale(LC_CTYPE, "C.UTF-8")
        }
    }()
}

/// Sets the process locale for curses and `wcwidth` (see `TerminalText`).
func ensureUTF8Locale() {
    UTF8Locale.ensureUTF8
}

extension TerminalText {
    /// `text` (sanitised) broken into lines of at most `width` columns, at
    /// spaces where possible and between graphemes otherwise (a word longer
    /// than a line, e.g. a path, starts on the current line); newlines start new lines.
    /// - Parameter hangingIndent: columns of spaces that start every line a
    ///   paragraph wraps onto (e.g. to keep a description under its column);
    ///   ignored when it leaves no room.
    public static func wrap(_ text: String, width: Int, hangingIndent: Int = 0) -> [String] {
        guard width > 0 else { return [] }
        let indent = hangingIndent < width ? max(0, hangingIndent) : 0
        var lines: [String] = []
        for paragraph in text.split(separator: "\n", omittingEmptySubsequences: false) {
            var line = ""
            var lineWidth = 0
            var continued = false
            func finish() {
                lines.append(line)
                continued = true
                line = String(repeating: " ", count: indent)
                lineWidth = indent
            }
            for word in sanitize(String(paragraph)).split(separator: " ", omittingEmptySubsequences: false) {
                var word = String(word)
                var wordWidth = columns(word)
                let gap = lineWidth == (continued ? indent : 0) ? 0 : 1
                if lineWidth + gap + wordWidth <= width {
                    if gap == 1 { line += " " }
                    line += word
                    lineWidth += gap + wordWidth
                    continue
                }
                let base = continued ? indent : 0
                if lineWidth > base {
                    if wordWidth > width - base, lineWidth + gap < width {
                        line += " "
                        lineWidth += 1
                    } else {
                        finish()
                    }
                }
                while lineWidth + wordWidth > width {
                    let head = prefix(word, columns: width - lineWidth)
                    guard !head.isEmpty else { break }
                    line += head
                    finish()
                    word.removeFirst(head.count)
                    wordWidth = columns(word)
                }
                line += word
                lineWidth += wordWidth
            }
            lines.append(line)
        }
        return lines
    }
}
