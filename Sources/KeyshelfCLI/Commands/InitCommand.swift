import KeyshelfVault

/// `keyshelf init [--kdf interactive|moderate|sensitive]`: creates the vault.
struct InitCommand: Command {
    static let spec = CommandSpec(
        name: "init", summary: "create the vault (asks for a new master password twice)",
        options: [
            .value("--kdf", valueName: "LEVEL", help: "Argon2id cost: interactive, moderate (default) or sensitive",
                   completion: .words("interactive", "moderate", "sensitive")),
        ],
        shared: [.vault, .passwordFD],
        discussion: """
            The vault directory must not hold a vault yet; an existing one
            must be yours (another user's is refused) and is made private
            (mode 0700). A master password
            shorter than 12 characters is warned about: on the terminal it
            must be confirmed (else it is asked again); from --password-fd or
            $KEYSHELF_PASSWORD_FILE the warning goes to standard error. For tests and scripted
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
        let directory = VaultAccess.directory(options, context)
        if try directory.vaultExists() {
            throw VaultError(.alreadyExists, file: directory.url.path, reason: "a vault already exists here; use it, or choose another directory with --vault")
        }
        let level = KDFLevel.resolve(kdf, environment: context.environment)
        let password = try NewMasterPassword.read(
            from: VaultAccess.passwordSource(options, context), terminal: context.terminal,
            prompt: "New master password: ", confirmPrompt: "Repeat the master password: ", kind: .master,
            warn: context.note)
        let session = VaultAccess.reportingNotes(try directory.create(password: password, limits: level.limits,
                                                                     keyDerivationConsent: TerminalKeyDerivationConsent.policy(context)),
                                                 context)
        let adopted = session.limits != level.limits
        session.lock()
        // An adopted shared.vault (a synced copy) keeps its own limits: say which were really used.
        context.note("created the vault in \(directory.url.path) (Argon2id " + (adopted ? "\(session.limits), adopted from shared.vault" : level.rawValue) + ")")
        return .success
    }
}
