import Foundation

/// Debian's `git`, run as a program in the vault directory (docs/sync.md):
/// no shell, arguments as an array, `GIT_TERMINAL_PROMPT=0` (a remote that
/// wants a password fails instead of asking), and never a secret in its
/// arguments or environment — git only ever sees sealed vault files.
public struct Git: Sendable {
    /// The work tree (the vault directory).
    public let workTree: URL
    let executable: URL
    let environment: [String: String]

    /// What one git run gave back.
    public struct Result: Sendable {
        public var status: Int32
        public var output: Data
        public var errorText: String
        /// Standard output as text, without the trailing newline.
        public var text: String { String(decoding: output, as: UTF8.self).trimmingCharacters(in: .newlines) }
    }

    /// - Throws: `SyncError.gitMissing` when no `git` is on `PATH`.
    public init(workTree: URL, environment: [String: String]) throws {
        self.workTree = workTree
        let path = environment["PATH"] ?? "/usr/bin:/bin"
        guard let found = path.split(separator: ":").map({ URL(fileURLWithPath: String($0)).appendingPathComponent("git") })
            .first(where: { FileManager.default.isExecutableFile(atPath: $0.path) }) else {
            throw SyncError("git is not installed (no `git` on PATH); install Debian's git package")
        }
        executable = found
        var env = environment
        // The vault directory is the repository, whatever the caller's git variables say.
        for name in ["GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY", "GIT_NAMESPACE", "GIT_PREFIX"] {
            env[name] = nil
        }
        env["GIT_TERMINAL_PROMPT"] = "0"
        env["GIT_MERGE_AUTOEDIT"] = "no"
        env["LC_ALL"] = "C"
        self.environment = env
    }

    /// Runs `git ARGUMENTS` in the work tree and waits for it (`ChildProcess`).
    /// - Parameter input: bytes for its standard input (none: /dev/null).
    /// - Throws: `SyncError` when it cannot start, or (unless `check` is false)
    ///   when it exits non-zero, quoting git's message.
    @discardableResult
    public func run(_ arguments: [String], input: Data? = nil, check: Bool = true) throws -> Result {
        let ran: ChildProcess.Output
        do {
            ran = try ChildProcess.run(executable.path, arguments, environment: environment, directory: workTree.path,
                                       input: input.map { [UInt8]($0) })
        } catch {
            throw SyncError("cannot run git: \(error)")
        }
        let result = Result(status: ran.status, output: Data(ran.standardOutput),
                            errorText: String(decoding: ran.standardError, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
        if check && result.status != 0 {
            throw SyncError("git \(arguments.first ?? "") failed: \(result.errorText.isEmpty ? "exit \(result.status)" : result.errorText)")
        }
        return result
    }

    /// The object id `revision` names, or nil when it names nothing.
    public func resolve(_ revision: String) throws -> String? {
        let result = try run(["rev-parse", "--verify", "--quiet", revision + "^{commit}"], check: false)
        return result.status == 0 ? result.text : nil
    }

    /// The bytes of the blob `id`.
    /// - Parameter limit: largest blob accepted, in bytes (as a vault file's limit).
    /// - Throws: `SyncError` when git fails or the blob is larger than `limit`.
    public func blob(_ id: String, limit: Int = 2 << 30) throws -> [UInt8] {
        let size = try run(["cat-file", "-s", id])
        guard let count = Int(size.text), count <= limit else { throw SyncError("\(id) is \(size.text) bytes, larger than any vault keyshelf opens; refused") }
        return [UInt8](try run(["cat-file", "blob", id]).output)
    }

    /// Whether `ancestor` is an ancestor of (or equal to) `descendant`.
    public func isAncestor(_ ancestor: String, of descendant: String) throws -> Bool {
        try run(["merge-base", "--is-ancestor", ancestor, descendant], check: false).status == 0
    }
}

/// A sync failure with a sentence the user can act on (exit 1).
public struct SyncError: Error, CustomStringConvertible, Sendable {
    public var reason: String
    public init(_ reason: String) { self.reason = reason }
    public var description: String { reason }
}
