import Foundation

/// Text attributes a style may add to its colours.
public struct TextAttributes: OptionSet, Sendable, Hashable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    public static let bold = TextAttributes(rawValue: 1)
    public static let underline = TextAttributes(rawValue: 2)
    public static let reverse = TextAttributes(rawValue: 4)
    public static let dim = TextAttributes(rawValue: 8)

    static let words: [String: TextAttributes] = ["bold": .bold, "underline": .underline, "reverse": .reverse, "dim": .dim]
}

/// How one role is drawn: foreground, background, attributes.
public struct Style: Equatable, Sendable {
    public var foreground: Color
    public var background: Color
    public var attributes: TextAttributes
    public init(foreground: Color = .terminalDefault, background: Color = .terminalDefault, attributes: TextAttributes = []) {
        self.foreground = foreground
        self.background = background
        self.attributes = attributes
    }
}

/// A colour theme: one `Style` per `Role`, read from a file in `themes/` (format in themes/README.md).
public struct Theme: Equatable, Sendable {
    /// The theme's name (its file name without `.theme`).
    public var name: String
    /// The style of each role; roles a file leaves out keep the monochrome defaults.
    public var styles: [Role: Style]

    /// The style for `role`.
    public func style(for role: Role) -> Style {
        styles[role] ?? Theme.monochrome.styles[role] ?? Style()
    }

    /// Attributes only, no colours: used for `NO_COLOR`, terminals without
    /// colour, and as the base every theme file starts from.
    public static let monochrome = Theme(name: "monochrome", styles: [
        .normal: Style(),
        .title: Style(attributes: [.reverse, .bold]),
        .border: Style(),
        .selection: Style(attributes: [.reverse]),
        .selectionInactive: Style(attributes: [.underline]),
        .dim: Style(attributes: [.dim]),
        .badgeLocal: Style(attributes: [.bold]),
        .badgeShared: Style(attributes: [.underline]),
        .status: Style(attributes: [.reverse]),
        .error: Style(attributes: [.bold, .underline]),
        .dialog: Style(),
        .button: Style(),
        .buttonFocused: Style(attributes: [.reverse, .bold]),
        .buttonDanger: Style(attributes: [.bold]),
        .input: Style(attributes: [.underline]),
        .accent: Style(attributes: [.bold]),
    ])

    /// The default dark theme, built in so the TUI has colours even when the
    /// `themes/` folder is not installed (same content as themes/dark.theme).
    public static let dark: Theme = {
        let text = """
        normal = default on default
        title = black on 39 bold
        border = 240
        selection = black on 39
        selection-inactive = default on 237
        dim = 245
        badge-local = 114 bold
        badge-shared = 75 bold
        status = 252 on 236
        error = 203 bold
        dialog = 252 on 235
        button = 252 on 238
        button-focused = black on 39 bold
        button-danger = 203 on 238 bold
        input = 255 on 238
        accent = 221 bold
        """
        // The built-in text is fixed and covered by tests, so it always parses.
        return (try? Theme.parse(text, name: "dark")) ?? .monochrome
    }()
}

/// A theme file that cannot be read, with the line that is wrong.
public struct ThemeError: Error, Equatable, CustomStringConvertible {
    /// The theme file or name.
    public var source: String
    /// 1-based line number; 0 when the whole file is concerned.
    public var line: Int
    public var reason: String
    public var description: String {
        line > 0 ? "theme \(source), line \(line): \(reason)" : "theme \(source): \(reason)"
    }
}

extension Theme {
    /// Parses a theme file: lines `role = FG [on BG] [bold] [underline] [reverse] [dim]`,
    /// `#` comments, blank lines. Colours are `default`, a name (`red`,
    /// `bright-blue`…) or 0–255 (themes/README.md).
    /// - Throws: `ThemeError` naming the line of an unknown role, colour or word.
    public static func parse(_ text: String, name: String) throws -> Theme {
        var styles = Theme.monochrome.styles
        for (offset, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = rawLine.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty { continue }
            let number = offset + 1
            func fail(_ reason: String) -> ThemeError { ThemeError(source: name, line: number, reason: reason) }
            let parts = trimmed.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == 2 else { throw fail("expected `role = colour`") }
            guard let role = Role(rawValue: parts[0].lowercased()) else {
                throw fail("unknown role \"\(TerminalText.sanitize(parts[0]))\"")
            }
            var words = parts[1].split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "," }).map(String.init)[...]
            var style = Style()
            guard let first = words.popFirst(), let fg = Color(parsing: first) else {
                throw fail("expected a colour (default, a name or 0–255) for \(role.rawValue)")
            }
            style.foreground = fg
            if words.first?.lowercased() == "on" {
                words.removeFirst()
                guard let word = words.popFirst(), let bg = Color(parsing: word) else {
                    throw fail("expected a background colour after \"on\"")
                }
                style.background = bg
            }
            for word in words {
                guard let attribute = TextAttributes.words[word.lowercased()] else {
                    throw fail("unknown attribute \"\(TerminalText.sanitize(word))\" (bold, underline, reverse, dim)")
                }
                style.attributes.insert(attribute)
            }
            styles[role] = style
        }
        return Theme(name: name, styles: styles)
    }

    /// Loads the theme `name` from the first folder of `searchPaths` that has `NAME.theme`;
    /// `dark` and `monochrome` fall back to the built-in copies.
    /// - Throws: `ThemeError` when no file is found or the file does not parse.
    public static func load(named name: String, searchPaths: [URL]) throws -> Theme {
        guard name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }), !name.isEmpty else {
            throw ThemeError(source: TerminalText.sanitize(name), line: 0, reason: "a theme name uses letters, digits, - and _ only")
        }
        for folder in searchPaths {
            let file = folder.appendingPathComponent("\(name).theme")
            if let text = try? String(contentsOf: file, encoding: .utf8) {
                return try parse(text, name: name)
            }
        }
        switch name {
        case "dark": return .dark
        case "monochrome": return .monochrome
        default:
            throw ThemeError(source: name, line: 0, reason: "no file \(name).theme in \(searchPaths.map(\.path).joined(separator: ", "))")
        }
    }
}
