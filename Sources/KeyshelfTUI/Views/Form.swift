import KeyshelfCrypto

/// A modal form of labelled fields with inline errors: Tab/Down and Shift-Tab/Up
/// move between fields, Enter on the last field (or Ctrl-S anywhere) submits, Esc cancels;
/// in a multi-line text field (notes) Enter adds a line and only Ctrl-S saves;
/// Ctrl-G asks for the generator when the form has a `generatorField`.
public final class Form {
    /// One input of a form.
    public enum Input {
        case text(TextField)
        /// Masked; bytes kept in secure memory.
        case secret(SecretField)
        /// One of a few choices, changed with Space or Left/Right; drawn as a row
        /// of all choices when it fits, else as the selected one and its position.
        case choice([String], selected: Int)
    }

    /// A labelled input and its validation message.
    public struct Field {
        public var label: String
        public var input: Input
        /// Shown under the field in the error role; nil when the value is fine.
        public var error: String?
        /// A hint shown dimmed under the field when there is no error.
        public var hint: String?
        /// Enter adds a line instead of moving on (notes, issue 13 rule 5).
        public var multiline = false
        public init(label: String, input: Input, hint: String? = nil) {
            self.label = label
            self.input = input
            self.hint = hint
        }
    }

    public enum Outcome: Equatable {
        case submit
        case cancel
        /// Ctrl-G in a form with a `generatorField`: the user wants a generated password there.
        case generate
    }

    public var title: String
    /// Text above the fields (e.g. why a prompt asks), wrapped to the form's width.
    public var message: String?
    public var fields: [Field]
    /// Index of the secret field Ctrl-G fills from the generator; nil: Ctrl-G does nothing.
    public let generatorField: Int?
    public private(set) var focus = 0
    /// A form-wide error shown above the fields (e.g. the domain layer refused the save).
    public var error: String?

    public init(title: String, message: String? = nil, fields: [Field], generatorField: Int? = nil) {
        precondition(!fields.isEmpty, "a form needs a field")
        self.title = title
        self.message = message
        self.fields = fields
        self.generatorField = generatorField
    }

    /// The keys of every form, for `?`: what `handle` and the text fields do with them.
    public static let helpRows: [(keys: String, help: String)] = [
        ("Tab ↓ Shift-Tab ↑", "next / previous field"),
        ("Enter", "next field; saves on the last (in notes: a new line)"),
        ("Ctrl-S", "save"),
        ("Ctrl-G", "generate a password (add, edit and login forms)"),
        ("Space ← →", "switch a choice (store, format)"),
        ("Ctrl-W Ctrl-U", "delete the word before the cursor / the whole field"),
        ("Home End", "start / end of the field (also Ctrl-A Ctrl-E)"),
        ("Esc", "cancel"),
    ]

    /// The key hints at the bottom: only the keys this form answers.
    public var footer: String { hints(multiline: fields[focus].multiline).joined(separator: " · ") }

    private func hints(multiline: Bool) -> [String] {
        var hints = multiline ? ["Enter new line", "Ctrl-S save", "Tab move"]
            : fields.count == 1 ? ["Enter confirm"] : ["Enter next/save", "Tab move"]
        if generatorField != nil { hints.append("Ctrl-G generate") }
        hints.append("Esc cancel")
        return hints
    }

    /// `hints` joined with " · " into lines of at most `width` columns, broken between hints.
    static func lines(of hints: [String], width: Int) -> [String] {
        var lines: [String] = []
        for hint in hints {
            if let last = lines.last, TerminalText.columns(last) + 3 + TerminalText.columns(hint) <= width {
                lines[lines.count - 1] = last + " · " + hint
            } else {
                lines.append(hint)
            }
        }
        return lines
    }

    /// Applies a key; returns the outcome when the form is done or asks for a generated password.
    public func handle(_ key: Key) -> Outcome? {
        switch key {
        case .escape: return .cancel
        case .control("s"): return .submit
        case .control("g"): return generatorField == nil ? nil : .generate
        case .tab, .down:
            focus = (focus + 1) % fields.count
            return nil
        case .backTab, .up:
            focus = (focus + fields.count - 1) % fields.count
            return nil
        case .enter:
            if fields[focus].multiline, case .text(var field) = fields[focus].input {
                field.insertLineBreak()
                fields[focus].input = .text(field)
                return nil
            }
            if focus == fields.count - 1 { return .submit }
            focus += 1
            return nil
        default:
            break
        }
        switch fields[focus].input {
        case .text(var field):
            if field.handle(key) {
                fields[focus].input = .text(field)
                fields[focus].error = nil
            }
        case .secret(let field):
            if field.handle(key) { fields[focus].error = nil }
        case .choice(let options, let selected):
            switch key {
            case .character(" "), .right, .character("l"):
                fields[focus].input = .choice(options, selected: (selected + 1) % options.count)
            case .left, .character("h"):
                fields[focus].input = .choice(options, selected: (selected + options.count - 1) % options.count)
            default: break
            }
        }
        return nil
    }

    /// Moves focus to the field at `index` (e.g. the first one with an error).
    public func focus(on index: Int) {
        focus = max(0, min(index, fields.count - 1))
    }

    /// The text of a text field, or nil for other kinds.
    public func text(at index: Int) -> String? {
        if case .text(let field) = fields[index].input { return field.text }
        return nil
    }

    /// The secret field at `index`, or nil for other kinds.
    public func secretField(at index: Int) -> SecretField? {
        if case .secret(let field) = fields[index].input { return field }
        return nil
    }

    /// The selected choice of a choice field, or nil for other kinds.
    public func choice(at index: Int) -> Int? {
        if case .choice(_, let selected) = fields[index].input { return selected }
        return nil
    }

    /// Draws the form centred on `screen`.
    public func draw(on screen: Screen) {
        let size = screen.size
        let width = min(size.columns - 2, 64)
        let labelWidth = min(12, max(6, fields.map { TerminalText.columns($0.label) }.max() ?? 6) + 1)
        let inputWidth = max(4, width - labelWidth - 5)
        // A long error (a file name and a line number) wraps onto up to four lines, the message
        // onto what the screen leaves; a blank line separates the message from the fields.
        let errorLines = error.map { TerminalText.wrap($0, width: width - 4, maxLines: 4) } ?? []
        // The key line breaks between hints rather than cutting keys off; the box keeps
        // one height whichever field has focus (a notes field's line is the longest).
        let footerLines = Self.lines(of: hints(multiline: fields[focus].multiline), width: width - 4)
        let footerRows = fields.map { Self.lines(of: hints(multiline: $0.multiline), width: width - 4).count }.max() ?? 1
        let fixed = fields.count * 2 + 4 + footerRows + errorLines.count
        let messageLines = message.map { TerminalText.wrap($0, width: width - 4, maxLines: max(1, size.rows - fixed - 1)) } ?? []
        let height = min(size.rows, fixed + (messageLines.isEmpty ? 0 : messageLines.count + 1))
        let top = max(0, (size.rows - height) / 2)
        let left = max(0, (size.columns - width) / 2)
        Box.fill(on: screen, row: top, column: left, height: height, width: width, role: .dialog)
        Box.draw(on: screen, row: top, column: left, height: height, width: width, title: title, role: .dialog)
        var row = top + 1
        for line in errorLines {
            screen.put(line, row: row, column: left + 2, role: .error, width: width - 4)
            row += 1
        }
        for line in messageLines {
            screen.put(line, row: row, column: left + 2, role: .dialog, width: width - 4)
            row += 1
        }
        if !messageLines.isEmpty { row += 1 }
        var cursor: (Int, Int)?
        for (index, field) in fields.enumerated() where row < top + height - 1 - footerRows {
            let focused = index == focus
            screen.put(field.label, row: row, column: left + 2, role: focused ? .accent : .dialog, width: labelWidth)
            let column = left + 2 + labelWidth + 1
            switch field.input {
            case .text(let text):
                let c = text.draw(on: screen, row: row, column: column, width: inputWidth)
                if focused { cursor = (row, c) }
            case .secret(let secret):
                let c = secret.draw(on: screen, row: row, column: column, width: inputWidth)
                if focused { cursor = (row, c) }
            case .choice(let options, let selected):
                let all = options.enumerated().map { $0.offset == selected ? "(•) \($0.element)" : "( ) \($0.element)" }.joined(separator: "  ")
                // Too many choices for one line: show the selected one and where it is in the list.
                let text = TerminalText.columns(all) <= inputWidth ? all : "◂ \(options[selected]) ▸  \(selected + 1) of \(options.count)"
                screen.put(text, row: row, column: column, role: focused ? .input : .dialog, width: inputWidth)
            }
            if let message = field.error {
                screen.put(message, row: row + 1, column: column, role: .error, width: inputWidth)
            } else if let hint = field.hint, focused {
                screen.put(hint, row: row + 1, column: column, role: .dim, width: inputWidth)
            }
            row += 2
        }
        for (i, line) in footerLines.enumerated() {
            screen.put(line, row: top + height - 1 - footerRows + i, column: left + 2, role: .dim, width: width - 4)
        }
        if let cursor {
            screen.setCursor(row: cursor.0, column: cursor.1, visible: true)
        } else {
            screen.setCursor(row: 0, column: 0, visible: false)
        }
    }
}
