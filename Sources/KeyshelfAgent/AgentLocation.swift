import Foundation
import Glibc
import KeyshelfCrypto
import KeyshelfVault

/// Where the agent of one vault directory listens: one agent, socket and
/// lock file per vault (docs/agent-protocol.md, "Location").
///
/// The directory is `$XDG_RUNTIME_DIR/keyshelf/`, else `/tmp/keyshelf-UID/`;
/// it must be a real directory owned by this uid and not writable by group
/// or others, and is created with mode 0700. The file names carry the first
/// 16 bytes of the BLAKE2b hash of the vault's resolved path, in hex.
public struct AgentLocation: Equatable, Sendable {
    /// The socket directory.
    public let directory: String
    /// The vault directory served, with symbolic links resolved.
    public let vaultPath: String

    /// The location for `vault` under `environment`.
    public init(vault: VaultDirectory, environment: [String: String]) {
        let runtime = environment["XDG_RUNTIME_DIR"].flatMap { $0.hasPrefix("/") ? $0 : nil }
        self.init(directory: runtime.map { $0 + "/keyshelf" } ?? "/tmp/keyshelf-\(getuid())", vaultPath: Self.resolvedPath(vault.url.path))
    }

    /// A location from its parts, as the agent process receives them.
    init(directory: String, vaultPath: String) {
        self.directory = directory
        self.vaultPath = vaultPath
    }

    private var stem: String {
        let hash = Array(vaultPath.utf8).withUnsafeBytes { GenericHash.hash($0, byteCount: 16) }
        // Not String(format:): its first call loads locale data and costs tens of milliseconds.
        let digits = Array("0123456789abcdef".utf8)
        let hex = hash.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 0x0F)]] }
        return directory + "/agent-" + String(decoding: hex, as: UTF8.self)
    }

    /// The agent's Unix socket (mode 0600).
    public var socketPath: String { stem + ".sock" }
    /// The file the running agent holds an exclusive `flock` on for its whole life.
    var lockPath: String { stem + ".lock" }

    /// `path` with symbolic links and `..` resolved when it exists.
    static func resolvedPath(_ path: String) -> String {
        guard let resolved = realpath(path, nil) else { return URL(fileURLWithPath: path).standardized.path }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// Checks the socket directory, creating it (mode 0700) when `create` is true.
    /// - Returns: false when it does not exist and `create` is false.
    /// - Throws: `AgentError.unsafeDirectory` when it is not a directory (a
    ///   symbolic link included), is owned by another uid, or is writable by
    ///   group or others; `.io`.
    @discardableResult
    public func checkDirectory(create: Bool) throws -> Bool {
        var info = stat()
        if lstat(directory, &info) != 0 {
            guard errno == ENOENT else { throw AgentSocket.ioError("examine \(directory)") }
            guard create else { return false }
            if mkdir(directory, 0o700) != 0 && errno != EEXIST {
                throw AgentSocket.ioError("create the agent directory \(directory)")
            }
            guard lstat(directory, &info) == 0 else { throw AgentSocket.ioError("examine \(directory)") }
        }
        guard info.st_mode & S_IFMT == S_IFDIR else {
            throw AgentError(.unsafeDirectory, "\(directory) is not a directory; refusing to use it for the agent")
        }
        guard info.st_uid == getuid() else {
            throw AgentError(.unsafeDirectory, "\(directory) belongs to uid \(info.st_uid), not to you (uid \(getuid())); refusing to use it for the agent")
        }
        guard info.st_mode & 0o022 == 0 else {
            throw AgentError(.unsafeDirectory, "\(directory) is writable by group or others (mode \(String(info.st_mode & 0o777, radix: 8))); make it 0700 (chmod 700) to use the agent")
        }
        return true
    }
}
