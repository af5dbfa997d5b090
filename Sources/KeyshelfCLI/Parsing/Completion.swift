/// What a shell offers on Tab for one positional argument or option value,
/// kept in the command table (`CommandSpec`) so the bash, zsh and fish
/// scripts and `keyshelf __complete` agree (docs/cli.md, "Shell completion").
struct Completion: Sendable, Equatable {
    /// Fixed words, e.g. `["set", "get", "list", "rm"]`.
    var words: [String] = []
    /// Names only keyshelf knows, asked of `keyshelf __complete` at Tab time.
    var names: Names?
    /// Paths the shell completes itself.
    var paths: Paths?

    /// Names `keyshelf __complete KIND` prints, one a line.
    enum Names: String, Sendable, CaseIterable {
        /// Saved servers; only while the agent is unlocked.
        case servers
        /// Accounts of the SERVER given before this argument; only while the agent is unlocked.
        case accounts
        /// Theme names found in the theme folders (no vault involved).
        case themes
    }

    enum Paths: String, Sendable {
        case file, directory
    }

    /// Nothing to offer (free text, numbers, secrets' descriptors).
    static let none = Completion()
    static let servers = Completion(names: .servers)
    static let accounts = Completion(names: .accounts)
    static let themes = Completion(names: .themes)
    static let file = Completion(paths: .file)
    static let directory = Completion(paths: .directory)

    static func words(_ words: String...) -> Completion { Completion(words: words) }

    /// This completion plus fixed `words` (e.g. a server, or the word `set`).
    func or(_ words: String...) -> Completion {
        var copy = self
        copy.words += words
        return copy
    }

    /// From a positional's placeholder, so a new command completes without
    /// extra table entries: SERVER/DOMAIN → servers, ACCOUNT → accounts,
    /// FILE/PATH → files, DIR → directories, `a|b` → those words.
    static func inferred(fromPositional name: String) -> Completion {
        if name.contains("|") {
            let parts = name.split(separator: "|").map(String.init)
            let words = parts.filter { $0.allSatisfy { $0.isLowercase || $0 == "-" } }
            var completion = Completion(words: words)
            if parts.contains(where: { $0.hasPrefix("FILE") }) { completion.paths = .file }
            if parts.contains("DIR") && completion.paths == nil { completion.paths = .directory }
            return completion
        }
        switch name {
        case "SERVER", "DOMAIN": return .servers
        case "ACCOUNT": return .accounts
        case "FILE", "PATH", "PEM": return .file
        case "DIR", "DIRECTORY": return .directory
        default: return .none
        }
    }

    /// From an option's value placeholder: DIR → directories, FILE/PEM → files,
    /// `a|b` → those words, `--theme` → theme names.
    static func inferred(fromValueName valueName: String, option: String) -> Completion {
        if option == "--theme" { return .themes }
        return inferred(fromPositional: valueName)
    }
}
