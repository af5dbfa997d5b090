/// The text `--help` prints for a command, built from its `CommandSpec`.
enum Help {
    /// "usage: keyshelf get SERVER [ACCOUNT] [options]"; one line per
    /// `CommandSpec.synopses` entry, the later ones indented under the first.
    static func usageLine(_ spec: CommandSpec) -> String {
        spec.synopses.enumerated().map { index, synopsis in
            (index == 0 ? "usage: " : "       ") + spec.invocation + (synopsis.isEmpty ? "" : " " + synopsis)
        }.joined(separator: "\n")
    }

    /// The full help of one command.
    static func text(_ spec: CommandSpec) -> String {
        var lines = [usageLine(spec), "", spec.summary]
        let listed = spec.positionals.filter(\.listed)
        if !listed.isEmpty {
            lines.append("")
            lines.append("arguments:")
            for positional in listed {
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
