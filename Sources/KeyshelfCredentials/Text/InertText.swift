/// Untrusted text made safe to print as text: every scalar `InertScalars`
/// calls unsafe becomes a visible `\u{…}` escape with upper-case hex and no
/// padding (`\u{1B}`, `\u{202E}`). The one escape form of the CLI and of
/// the domain's messages (DESIGN §7); the TUI draws symbols instead
/// (`TerminalText.sanitize`) under the same rule.
public enum InertText {
    /// `text` with unsafe scalars escaped; everything else, quotes and
    /// backslashes included, unchanged.
    public static func make(_ text: String) -> String {
        InertScalars.map(text, replacement: escape)
    }

    /// `text` in double quotes for a message that names an account, a
    /// server, a query or a path: quotes and backslashes inside are escaped,
    /// so a name cannot fake the end of the quote, and unsafe scalars are
    /// escaped as in `make`.
    public static func quoted(_ text: String) -> String {
        var escaped = ""
        for scalar in text.unicodeScalars {
            if scalar == "\"" || scalar == "\\" { escaped += "\\" }
            escaped.unicodeScalars.append(scalar)
        }
        return "\"" + make(escaped) + "\""
    }

    /// The escape for one scalar: `\u{` upper-case hex `}`.
    public static func escape(_ scalar: Unicode.Scalar) -> String {
        "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
    }
}
