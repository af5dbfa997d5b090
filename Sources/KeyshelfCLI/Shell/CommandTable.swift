/// The command table as the shell scripts and the man page see it: every
/// visible command's `CommandSpec` (`CommandLineInterface.commands`) and the
/// bare `keyshelf` (the TUI). Generators read only this, so a command or
/// flag added to a spec appears in `--help`, `keyshelf.1` and the three
/// completion scripts without further edits (docs/cli.md, "Shell completion").
struct CommandTable: Sendable {
    /// The bare `keyshelf`: the TUI's options.
    var topLevel: CommandSpec
    /// The subcommands in `keyshelf --help` order.
    var commands: [CommandSpec]

    /// The table of this build.
    static var current: CommandTable {
        CommandTable(topLevel: TUICommand.spec, commands: CommandLineInterface.commands.map { $0.spec })
    }

    /// Options the bare `keyshelf` takes besides the TUI's: `--help`, `--version`.
    static let programOptions: [OptionSpec] = [
        .flag("--version", help: "print the version"),
    ]

    /// Every spelling a shell offers for `spec`, `--help`/`-h` included.
    static func optionNames(_ spec: CommandSpec) -> [String] {
        spec.options.flatMap(\.names) + ["--help", "-h"]
    }

    /// The options of `spec` as shells show them, with `--help` last.
    static func options(_ spec: CommandSpec) -> [OptionSpec] {
        spec.options + [.flag("--help", "-h", help: "show this help")]
    }

    /// The options of the bare `keyshelf`.
    var topLevelOptions: [OptionSpec] { Self.programOptions + Self.options(topLevel) }
}

extension Completion {
    /// The compact form the generated scripts carry: `;`-separated parts
    /// `w=a,b` (words), `n=servers` (names from `keyshelf __complete`),
    /// `p=file` / `p=directory` (paths); `-` for nothing. Words, kinds and
    /// option names never hold spaces, `;`, `,`, `=` or `:`.
    var token: String {
        var parts: [String] = []
        if !words.isEmpty { parts.append("w=" + words.joined(separator: ",")) }
        if let names { parts.append("n=" + names.rawValue) }
        if let paths { parts.append("p=" + paths.rawValue) }
        return parts.isEmpty ? "-" : parts.joined(separator: ";")
    }
}

extension CommandSpec {
    /// `OPTION:TOKEN` for each spelling of each option that takes a value.
    var valueTokens: [String] {
        options.filter(\.takesValue).flatMap { option in option.names.map { "\($0):\(option.valueCompletion.token)" } }
    }

    /// One completion token per positional, in order.
    var positionalTokens: [String] { positionals.map(\.resolvedCompletion.token) }
}
