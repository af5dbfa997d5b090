/// What a command accepts on its command line: options, flags and
/// positional arguments, plus the text `--help` prints.
struct CommandSpec: Sendable {
    /// The subcommand word, e.g. "get"; empty for the bare `keyshelf` (TUI).
    var name: String
    /// One line for `keyshelf --help`.
    var summary: String
    /// The positional arguments in order; optional ones come last.
    var positionals: [PositionalSpec] = []
    /// The options and flags, shared ones included.
    var options: [OptionSpec] = []
    /// Extra paragraphs for `--help` (rules, examples, exit codes).
    var discussion: String = ""
    /// The usage lines after the command name, one per form of a command with
    /// sub-operations (`set SERVER ACCOUNT [options]`); empty: one line from `positionals`.
    var usages: [String] = []

    init(name: String, summary: String, positionals: [PositionalSpec] = [],
         options: [OptionSpec] = [], shared: [SharedOption] = [], usages: [String] = [], discussion: String = "") {
        self.name = name
        self.summary = summary
        self.positionals = positionals
        self.options = options + shared.flatMap(\.specs)
        self.usages = usages
        self.discussion = discussion
    }

    /// What follows the invocation in each usage line (`--help`, the man
    /// page's SYNOPSIS): `usages`, else the listed positionals ("[ACCOUNT]"
    /// when optional) and "[options]" when there are any.
    var synopses: [String] {
        guard usages.isEmpty else { return usages }
        var words = positionals.filter(\.listed).map { $0.optional ? "[\($0.name)]" : $0.name }
        if !options.isEmpty { words.append("[options]") }
        return [words.joined(separator: " ")]
    }

    /// The option spec named `name` (`--count` or `-n`), if any.
    func option(named name: String) -> OptionSpec? {
        options.first { $0.names.contains(name) }
    }

    /// "keyshelf get" (or "keyshelf" for the TUI command).
    var invocation: String { name.isEmpty ? "keyshelf" : "keyshelf \(name)" }
}

/// One option (`--count N`) or flag (`--json`).
struct OptionSpec: Sendable {
    /// The spellings, long first: `["--count", "-n"]`. The first is the key in `ParsedArguments`.
    var names: [String]
    /// The placeholder shown in help for an option that takes a value; nil for a flag.
    var valueName: String?
    var help: String
    /// What the shells offer for the value; nil: inferred from `valueName` (`Completion.inferred`).
    var completion: Completion? = nil

    static func flag(_ names: String..., help: String) -> OptionSpec {
        OptionSpec(names: names, valueName: nil, help: help)
    }

    static func value(_ names: String..., valueName: String, help: String, completion: Completion? = nil) -> OptionSpec {
        OptionSpec(names: names, valueName: valueName, help: help, completion: completion)
    }

    /// What the shells offer for the value (`.none` for a flag).
    var valueCompletion: Completion {
        guard let valueName else { return .none }
        return completion ?? Completion.inferred(fromValueName: valueName, option: key)
    }

    var key: String { names[0] }
    /// All spellings for messages: `--count/-n`.
    var spelling: String { names.joined(separator: "/") }
    var takesValue: Bool { valueName != nil }
}

/// One positional argument.
struct PositionalSpec: Sendable {
    var name: String
    var optional: Bool = false
    var help: String
    /// What the shells offer here; nil: inferred from `name` (`Completion.inferred`).
    var completion: Completion? = nil
    /// Whether help and the man page list it; false for a slot another
    /// positional already describes (`otp set SERVER ACCOUNT`'s third word).
    var listed: Bool = true

    /// What the shells offer here.
    var resolvedCompletion: Completion { completion ?? Completion.inferred(fromPositional: name) }
}
