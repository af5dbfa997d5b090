/// `keyshelf completion bash|zsh|fish|man`: prints a completion script, or
/// the man page, generated from the command table (`CommandTable`);
/// `scripts/install` writes them where shells and `man` look.
struct CompletionCommand: Command {
    static let spec = CommandSpec(
        name: "completion", summary: "print the bash, zsh or fish completion script, or the man page",
        positionals: [.init(name: "SHELL", help: "bash, zsh, fish, or man for the troff page keyshelf.1",
                            completion: .words("bash", "zsh", "fish", "man"))],
        discussion: """
            scripts/install puts them in PREFIX/share/bash-completion/completions/keyshelf,
            PREFIX/share/zsh/site-functions/_keyshelf, PREFIX/share/fish/vendor_completions.d/keyshelf.fish
            and PREFIX/share/man/man1/keyshelf.1. For the current shell only:
            source <(keyshelf completion bash), or zsh's source <(keyshelf completion zsh).
            Server and account names are completed only while the agent is unlocked
            (keyshelf unlock): Tab never asks for the master password and nothing is cached.
            """)

    enum Output: String { case bash, zsh, fish, man }

    var output: Output

    init(_ arguments: ParsedArguments) throws(UsageError) {
        let word = arguments.positionals[0]
        guard let output = Output(rawValue: word) else {
            throw UsageError("completion expects bash, zsh, fish or man, not '\(word)'")
        }
        self.output = output
    }

    func run(_ context: CommandContext) throws -> ExitCode {
        let text = switch output {
        case .bash: BashCompletion.script()
        case .zsh: ZshCompletion.script()
        case .fish: FishCompletion.script()
        case .man: ManPage.page()
        }
        context.standardOutput.write(text)
        return .success
    }
}
