/// The text `--help` prints for a command, built from its `CommandSpec`.
enum Help {
    /// "usage: keyshelf get SERVER [ACCOUNT] [options]".
    static func usageLine(_ spec: CommandSpec) -> String {
        var words = ["usage:", spec.invocation]
        for positional in spec.positionals {
            words.append(positional.optional ? "[\(positional.name)]" : positional.name)
        }
        if !spec.options.isEmpty { words.append("[options]") }
        return words.joined(separator: " ")
    }

    /// The full help of one command.
    static func text(_ spec: CommandSpec) -> String {
        var lines = [usageLine(spec), "", spec.summary]
        if !spec.positionals.isEmpty {
            lines.append("")
            lines.append("arguments:")
            for positional in spec.positionals {
                lines.append(row(positional.name, positional.help))
            }
        }
        lines.append("")
        lines.append("options:")
        for option in spec.options {
            var label = option.names.joined(separator: ", ")
            if let valueName = option.valueName { label += " \(valueName)" }
            lines.append(row(label, option.help))
        }
        lines.append(row("-h, --help", "show this help"))
        if !spec.discussion.isEmpty {
            lines.append("")
            lines.append(spec.discussion)
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private static func row(_ label: String, _ help: String) -> String {
        let padded = label.count < 24 ? label + String(repeating: " ", count: 24 - label.count) : label + "  "
        return "  " + padded + help
    }
}
