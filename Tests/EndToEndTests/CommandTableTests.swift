import Foundation
import Testing
@testable import KeyshelfCLI

/// The command table is the one source of `--help`, the man page and the
/// three completion scripts (issue 17 item 2): every command and every
/// spelling of every option of every spec must appear in each of them.
@Suite struct CommandTableTests {
    /// Each output, and how a command or option spelling shows in it.
    struct Output {
        var name: String
        var text: String
        var command: (String) -> String
        var option: (String) -> String
    }

    static func outputs(_ table: CommandTable) -> [Output] {
        [
            Output(name: "bash", text: BashCompletion.script(table),
                   command: { " \($0) " }, option: { " \($0) " }),
            Output(name: "zsh", text: ZshCompletion.script(table),
                   command: { "'\($0):" }, option: { "'\($0):" }),
            Output(name: "fish", text: FishCompletion.script(table),
                   command: { "'\($0)\t" }, option: { "'\($0)\t" }),
            Output(name: "man", text: ManPage.page(table),
                   command: { ".SS \($0) " }, option: { ManPage.escape($0) }),
        ]
    }

    /// Checks every command and option of `table` against every output.
    static func missing(from table: CommandTable) -> [String] {
        var missing: [String] = []
        for output in outputs(table) {
            // Bash lists the commands in one space-separated word; pad it so each name has spaces around it.
            let text = output.text.replacingOccurrences(of: "'", with: " ' ").replacingOccurrences(of: "\n", with: " \n ")
            let haystack = output.name == "bash" || output.name == "man" ? text : output.text
            for spec in table.commands {
                if !haystack.contains(output.command(spec.name)) { missing.append("\(output.name): command \(spec.name)") }
            }
            for spec in [table.topLevel] + table.commands {
                for name in CommandTable.optionNames(spec) where !haystack.contains(output.option(name)) {
                    missing.append("\(output.name): \(spec.invocation) \(name)")
                }
            }
        }
        for spec in [table.topLevel] + table.commands {
            let help = Help.text(spec)
            for name in CommandTable.optionNames(spec) where !help.contains(name) {
                missing.append("help: \(spec.invocation) \(name)")
            }
        }
        return missing
    }

    @Test func everyCommandAndFlagAppearsInHelpManAndEachShell() {
        let table = CommandTable.current
        #expect(table.commands.count >= 20)
        #expect(Self.missing(from: table) == [])
    }

    /// A command another change adds to the table needs no edit elsewhere.
    @Test func aCommandAddedToTheTableAppearsEverywhere() {
        var table = CommandTable.current
        table.commands.append(CommandSpec(
            name: "frobnicate", summary: "a command that does not exist",
            positionals: [.init(name: "SERVER", help: "a server")],
            options: [.flag("--wibble", "-w", help: "a flag"), .value("--wobble", valueName: "FILE", help: "a file")],
            shared: [.vault]))
        #expect(Self.missing(from: table) == [])
        #expect(BashCompletion.script(table).contains("'--wobble:p=file'"))
        #expect(BashCompletion.script(table).contains("_keyshelf_positionals=('n=servers')"))
    }

    @Test func hiddenCommandsAreNeitherListedNorCompleted() {
        let table = CommandTable.current
        #expect(!table.commands.contains { $0.name.hasPrefix("__") })
        #expect(!CommandLineInterface.overview().contains("__complete"))
        #expect(!BashCompletion.script(table).contains("'__complete')"))
    }

    @Test(arguments: [
        ("SERVER", Completion.servers), ("DOMAIN", .servers), ("ACCOUNT", .accounts), ("FILE", .file),
        ("DIR", .directory), ("QUERY", .none), ("ignore|unignore", .words("ignore", "unignore")),
        ("FILE|DIR|-", Completion(words: ["-"], paths: .file)),
    ])
    func completionIsInferredFromThePlaceholder(name: String, expected: Completion) {
        #expect(Completion.inferred(fromPositional: name) == expected)
    }

    @Test(arguments: [
        ("improt", "import"), ("imp", "import"), ("lsit", "list"), ("stauts", "status"), ("--jsno", "--json"),
        ("--vualt", "--vault"), ("--loc", "--local"),
    ])
    func theNearestNameIsSuggested(typed: String, expected: String) {
        let names = CommandLineInterface.commands.map { $0.spec.name } + ["--json", "--vault", "--local", "--shared", "--yes"]
        #expect(Suggestion.nearest(to: typed, among: names) == expected)
    }

    @Test(arguments: ["bogus", "x", "--frobnicate", "zzzzzz"])
    func farNamesGetNoSuggestion(typed: String) {
        let names = CommandLineInterface.commands.map { $0.spec.name } + ["--json", "--vault"]
        #expect(Suggestion.nearest(to: typed, among: names) == nil)
    }
}
