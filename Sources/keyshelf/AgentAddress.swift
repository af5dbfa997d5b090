import CSodium
import Glibc

/// Where the agent of the vault directory listens, found exactly as the full
/// program finds it (KeyshelfVault's `VaultDirectory.resolve`, KeyshelfAgent's
/// `AgentLocation`; docs/agent-protocol.md, "Location"), and checked the same
/// way before anything is sent.
///
/// Only the plain case is served: an absolute vault directory whose
/// `local.vault` is a regular file, and a socket directory that exists, is no
/// symbolic link, belongs to this uid and is not writable by group or others.
/// Everything else (no vault, a relative path, no socket directory, an unsafe
/// one) is the full program's to report or to treat as "no agent".
struct AgentAddress {
    /// The agent's socket: `DIR/agent-H.sock`, H the first 16 bytes of
    /// BLAKE2b of the vault's resolved path, in lower-case hex.
    let socketPath: String

    /// - Parameter vaultOption: `--vault DIR`, when given.
    /// - Throws: `HandBack.noAgent`.
    init(vaultOption: String?) throws(HandBack) {
        let vault = try Self.vaultDirectory(option: vaultOption)
        var info = stat()
        guard lstat(vault + "/local.vault", &info) == 0, info.st_mode & S_IFMT == S_IFREG,
              let resolved = realpath(vault, nil) else { throw .noAgent }
        let path = String(cString: resolved)
        free(resolved)
        let runtime = Self.environment("XDG_RUNTIME_DIR").flatMap { $0.hasPrefix("/") ? $0 : nil }
        let directory = runtime.map { $0 + "/keyshelf" } ?? "/tmp/keyshelf-\(getuid())"
        guard lstat(directory, &info) == 0, info.st_mode & S_IFMT == S_IFDIR, info.st_uid == getuid(),
              info.st_mode & 0o022 == 0 else { throw .noAgent }
        socketPath = directory + "/agent-" + Self.hexHash(path) + ".sock"
        // sockaddr_un holds 107 bytes and a NUL; the full program explains a longer path.
        guard socketPath.utf8.count <= 107 else { throw .noAgent }
    }

    /// Checks that the socket file is there (an agent was unlocked and has
    /// not locked since).
    /// - Throws: `HandBack.noAgent`.
    func requireSocket() throws(HandBack) {
        var info = stat()
        guard lstat(socketPath, &info) == 0, info.st_mode & S_IFMT == S_IFSOCK else { throw .noAgent }
    }

    /// `--vault DIR`, else `$KEYSHELF_VAULT`, else `$XDG_DATA_HOME/keyshelf`,
    /// else `$HOME/.local/share/keyshelf`; empty values count as unset. Only
    /// an absolute path is served (Foundation resolves a relative one
    /// against the working directory, and the full program does that).
    static func vaultDirectory(option: String?) throws(HandBack) -> String {
        let directory = option ?? environment("KEYSHELF_VAULT")
            ?? environment("XDG_DATA_HOME").map { $0 + "/keyshelf" }
            ?? environment("HOME").map { $0 + "/.local/share/keyshelf" }
        guard let directory, directory.hasPrefix("/") else { throw .noAgent }
        return directory
    }

    /// The variable's value; nil when unset or empty.
    static func environment(_ name: String) -> String? {
        guard let value = getenv(name), value.pointee != 0 else { return nil }
        return String(cString: value)
    }

    /// The first 16 bytes of BLAKE2b (no key) of `text`'s UTF-8, in lower-case hex.
    static func hexHash(_ text: String) -> String {
        var hash = [UInt8](repeating: 0, count: 16)
        // No sodium_init: BLAKE2b's portable code needs none (it only selects faster code).
        let input = Array(text.utf8)
        _ = crypto_generichash(&hash, 16, input, UInt64(input.count), nil, 0)
        let digits = Array("0123456789abcdef".utf8)
        return String(decoding: hash.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 0x0F)]] }, as: UTF8.self)
    }
}
