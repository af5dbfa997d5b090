/// A server name that cannot be normalised (DESIGN §1). The CLI maps it to exit 2 (usage).
public struct ServerNameError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The text the user gave, exactly as given.
    public var input: String
    /// Why it was refused, as a sentence fragment ("contains a space").
    public var reason: String

    public init(input: String, reason: String) {
        self.input = input
        self.reason = reason
    }

    /// `invalid server name "exa mple.com": contains a space`; control
    /// characters in the input are shown escaped, never raw.
    public var description: String {
        "invalid server name \(ServerNameError.quoted(input)): \(reason)"
    }

    /// `text` in double quotes with quotes, backslashes and non-printable
    /// characters escaped (`\u{1B}`), so hostile input stays inert in a terminal.
    static func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            default:
                if scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
                    || scalar.properties.generalCategory == .format
                    || scalar.properties.generalCategory == .lineSeparator
                    || scalar.properties.generalCategory == .paragraphSeparator {
                    out += "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }
}

/// `text` in double quotes, with control and format characters escaped, for
/// every message that names an account, service or server input: such text
/// may be hostile and must stay inert on a terminal.
func quoted(_ text: String) -> String {
    ServerNameError.quoted(text)
}
