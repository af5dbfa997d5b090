/// Makes untrusted text safe to print on a terminal: control characters
/// (C0, DEL, C1) and so escape sequences become visible `\u{…}` escapes.
/// Names and notes can come from imports or other machines (DESIGN §7).
enum InertText {
    static func make(_ text: String) -> String {
        // Printable ASCII, the common case, needs no escapes and no copy.
        guard text.utf8.contains(where: { $0 < 0x20 || $0 >= 0x7F }) else { return text }
        var out = ""
        out.unicodeScalars.reserveCapacity(text.unicodeScalars.count)
        for scalar in text.unicodeScalars {
            if isControl(scalar) {
                out += "\\u{" + String(scalar.value, radix: 16) + "}"
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// `text` in double quotes for a message that names an account, a query
    /// or a path: quotes and backslashes inside are escaped, so a name cannot
    /// fake the end of the quote, and control characters are made inert.
    static func quoted(_ text: String) -> String {
        var escaped = ""
        for scalar in text.unicodeScalars {
            if scalar == "\"" || scalar == "\\" { escaped += "\\" }
            escaped.unicodeScalars.append(scalar)
        }
        return "\"" + make(escaped) + "\""
    }

    static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
            || scalar.value == 0x2028 || scalar.value == 0x2029
    }
}
