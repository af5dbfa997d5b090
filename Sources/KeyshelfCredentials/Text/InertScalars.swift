/// The one rule for which Unicode scalars must never reach a terminal raw
/// (DESIGN §7). Names, accounts and notes come from imports and synced
/// vaults, so any of them may hold escape sequences, reordering marks or
/// invisible characters that make two names look alike. Every output path
/// uses this rule: `InertText` (CLI and domain messages, `\u{1B}` escapes)
/// and the TUI's `TerminalText.sanitize` (visible symbols).
///
/// Unsafe, wherever they stand:
/// - C0 controls U+0000–U+001F, DEL U+007F and C1 controls U+0080–U+009F
///   (escape sequences, the 8-bit CSI, line breaks);
/// - line and paragraph separators U+2028, U+2029;
/// - every format character (general category Cf): the bidi marks,
///   embeddings, overrides and isolates (U+061C, U+200E/F, U+202A–U+202E,
///   U+2066–U+2069), zero-width space, non-joiner and joiner
///   (U+200B–U+200D), word joiner U+2060, invisible operators, U+FEFF,
///   the interlinear annotation controls U+FFF9–U+FFFB, the soft hyphen and
///   the tag characters U+E0000–U+E007F (so emoji subdivision flags show
///   their tags escaped);
/// - every other default-ignorable code point (Hangul fillers, the
///   combining grapheme joiner, variation selectors), which draw nothing;
/// - noncharacters (U+FDD0–U+FDEF and the last two code points of each plane);
/// - blanks that look like nothing or like a plain space, so `alice` and
///   `alice` + U+2800 cannot list alike: every space separator (general
///   category Zs) but U+0020 — NBSP U+00A0, U+1680, U+2000–U+200A, U+202F,
///   U+205F, U+3000 — and U+2800 BRAILLE PATTERN BLANK;
/// - a combining mark (general category M) after `maxStackedMarks` others
///   in a row: a base keeps its first four marks (enough for Vietnamese,
///   Hebrew points with cantillation, Tibetan stacks), the rest is escaped,
///   so stacked marks cannot smear over other lines or hide a letter.
///
/// Kept so that emoji stay intact (each case still draws a visible glyph):
/// - U+200D ZERO WIDTH JOINER between two emoji (`👩‍💻`), after an optional
///   U+FE0F on the left;
/// - U+FE0E / U+FE0F after a non-ASCII emoji (`❤️`), or after `0`–`9`, `#`,
///   `*` when a keycap U+20E3 follows (`1️⃣`);
/// - an ideographic variation selector U+E0100–U+E01EF after an ideograph.
/// A joiner between two emoji that form no sequence is the one invisible
/// scalar this lets through; both emoji still show.
public enum InertScalars {
    /// Combining marks kept in a row on one base; later ones are unsafe.
    public static let maxStackedMarks = 4

    /// Whether `scalar` is unsafe whatever surrounds it. Joiners and
    /// variation selectors count as unsafe here; `unsafeIndices` lets the
    /// emoji cases through.
    public static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool {
        let v = scalar.value
        if v < 0x20 || (0x7F...0x9F).contains(v) { return true }
        if v < 0xA0 { return false }
        let properties = scalar.properties
        switch properties.generalCategory {
        case .format, .lineSeparator, .paragraphSeparator, .spaceSeparator: return true
        default: break
        }
        return v == 0x2800 || properties.isDefaultIgnorableCodePoint || properties.isNoncharacterCodePoint
    }

    /// Whether `scalar` is unsafe or a combining mark, which is unsafe after
    /// `maxStackedMarks` others: the scalars `unsafeIndices` must look at.
    private static func needsContext(_ scalar: Unicode.Scalar) -> Bool {
        isUnsafe(scalar) || scalar.value >= 0x300 && isMark(scalar)
    }

    private static func isMark(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .spacingMark, .enclosingMark: true
        default: false
        }
    }

    /// Whether `text` holds no unsafe scalar (a fast check before escaping).
    public static func isInert(_ text: String) -> Bool {
        if text.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) { return true }
        if !text.unicodeScalars.contains(where: needsContext) { return true }
        return unsafeIndices(Array(text.unicodeScalars)).isEmpty
    }

    /// `text` with each unsafe scalar replaced by `replacement(scalar)`;
    /// every other scalar is kept as it is.
    public static func map(_ text: String, replacement: (Unicode.Scalar) -> String) -> String {
        // Fast paths without copies: printable ASCII, then text with no candidate at all.
        if text.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) { return text }
        if !text.unicodeScalars.contains(where: needsContext) { return text }
        let scalars = Array(text.unicodeScalars)
        let unsafe = unsafeIndices(scalars)
        if unsafe.isEmpty { return text }
        var out = String.UnicodeScalarView()
        for (index, scalar) in scalars.enumerated() {
            if unsafe.contains(index) {
                out.append(contentsOf: replacement(scalar).unicodeScalars)
            } else {
                out.append(scalar)
            }
        }
        return String(out)
    }

    /// The positions in `scalars` that must not reach a terminal raw:
    /// `isUnsafe` minus the emoji joiners and selectors kept above, plus
    /// every combining mark after `maxStackedMarks` in a row.
    public static func unsafeIndices(_ scalars: [Unicode.Scalar]) -> Set<Int> {
        var unsafe = Set<Int>()
        var marksInRow = 0
        for (index, scalar) in scalars.enumerated() {
            marksInRow = isMark(scalar) ? marksInRow + 1 : 0
            if marksInRow > maxStackedMarks || isUnsafe(scalar) && !keptInSequence(scalars, at: index) {
                unsafe.insert(index)
            }
        }
        return unsafe
    }

    private static func keptInSequence(_ scalars: [Unicode.Scalar], at index: Int) -> Bool {
        let previous = index > 0 ? scalars[index - 1] : nil
        let next = index + 1 < scalars.count ? scalars[index + 1] : nil
        switch scalars[index].value {
        case 0x200D:
            var left = index - 1
            if left >= 0, scalars[left].value == 0xFE0F { left -= 1 }
            guard left >= 0, let next else { return false }
            return isPictographic(scalars[left]) && isPictographic(next)
        case 0xFE0E, 0xFE0F:
            guard let previous else { return false }
            if isPictographic(previous) { return true }
            return previous.properties.isEmoji && next?.value == 0x20E3
        case 0xE0100...0xE01EF:
            return previous?.properties.isIdeographic ?? false
        default:
            return false
        }
    }

    /// A non-ASCII emoji scalar (ASCII digits, `#` and `*` carry the Emoji
    /// property too but draw as plain text).
    private static func isPictographic(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value > 0x7F && scalar.properties.isEmoji && !isUnsafe(scalar)
    }
}
