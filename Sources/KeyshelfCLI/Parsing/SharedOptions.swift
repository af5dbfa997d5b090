import KeyshelfCredentials

/// Options several commands share. A command lists the ones it accepts in
/// its `CommandSpec`; `SharedOptions(parsed)` reads them all.
enum SharedOption: Sendable {
    case vault, passwordFD, yes, scope, localOnly
    /// `--json` for one credential with its password (`get`, `login`).
    case json
    /// `--json` for a listing, without passwords (`list`, `search`).
    case jsonListing

    var specs: [OptionSpec] {
        switch self {
        case .vault:
            [.value("--vault", valueName: "DIR",
                   help: "vault directory (default $KEYSHELF_VAULT, else $XDG_DATA_HOME/keyshelf)")]
        case .passwordFD:
            [.value("--password-fd", valueName: "N",
                   help: "read the master password from the first line of file descriptor N"),
             .flag("--no-agent", help: "ask for the master password even when the agent is unlocked")]
        case .json:
            [.flag("--json", help: "print one JSON object: server, account, password, store, and port when not 443")]
        case .jsonListing:
            [.flag("--json", help: "print a JSON array of objects: server, account, store, and port when not 443 (no passwords)")]
        case .yes:
            [.flag("--yes", "-y", help: "answer yes to consent dialogs (for scripts; there is nobody to ask)")]
        case .scope:
            [.flag("--local", help: "only the local store (this device)"),
             .flag("--shared", help: "only the shared credentials")]
        case .localOnly:
            [.flag("--local", help: "write to the local store (this device) instead of the shared credentials")]
        }
    }
}

/// The shared options as given on one command line.
struct SharedOptions: Sendable {
    /// `--vault DIR`, unresolved (the vault module applies `$KEYSHELF_VAULT` and XDG).
    var vault: String?
    /// `--password-fd N`.
    var passwordFD: Int32?
    var json = false
    var yes = false
    /// `--no-agent`: open the vault with the master password, not the agent's keys.
    var noAgent = false
    /// `--local` / `--shared`: which stores the command acts on (DESIGN §8).
    var scope = StoreFilter.both

    /// Reads the shared options out of `parsed`.
    /// - Throws: `UsageError` for a bad `--password-fd` or both `--local` and `--shared`.
    init(_ parsed: ParsedArguments) throws(UsageError) {
        vault = parsed.value("--vault")
        if let text = parsed.value("--password-fd") {
            passwordFD = Int32(try ArgumentParser.integer(text, option: "--password-fd", in: 0...65_535))
        }
        json = parsed.has("--json")
        yes = parsed.has("--yes")
        noAgent = parsed.has("--no-agent")
        switch (parsed.has("--local"), parsed.has("--shared")) {
        case (true, true): throw UsageError("--local and --shared exclude each other")
        case (true, false): scope = .local
        case (false, true): scope = .shared
        case (false, false): scope = .both
        }
    }

    init() {}
}

