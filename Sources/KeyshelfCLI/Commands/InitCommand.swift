/// `keyshelf init [--kdf interactive|moderate|sensitive]`: creates the vault.
struct InitCommand: Command {
    static let spec = CommandSpec(
        name: "init", summary: "create the vault (asks for a new master password twice)",
        options: [
            .value("--kdf", valueName: "LEVEL", help: "Argon2id cost: interactive, moderate (default) or sensitive"),
        ],
        shared: [.vault, .passwordFD],
        discussion: """
            The vault directory must not hold a vault yet. For tests and scripted
            demos, $KEYSHELF_TEST_KDF=minimum (or --kdf minimum) uses Argon2id's
            smallest limits: fast, and unsafe for real secrets.
            """)

    var options: SharedOptions
    var kdf: KDFLevel?

    init(_ arguments: ParsedArguments) throws(UsageError) {
        options = try SharedOptions(arguments)
        if let text = arguments.value("--kdf") {
            guard let level = KDFLevel(rawValue: text) else {
                throw UsageError("--kdf expects interactive, moderate or sensitive, not '\(text)'")
            }
            kdf = level
        }
    }

    func run(_ context: CommandContext) throws -> ExitCode {
        throw CLIError(.failure, "init is not built yet")
    }
}
