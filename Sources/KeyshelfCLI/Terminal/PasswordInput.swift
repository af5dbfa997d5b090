import Glibc
import KeyshelfCrypto

/// Where a password comes from, in the order of DESIGN §8: a file
/// descriptor given on the command line, a file named by an environment
/// variable, else the controlling terminal. Never an argument.
enum PasswordSource: Equatable, Sendable {
    /// `--password-fd N`: the first line read from descriptor N.
    case fileDescriptor(Int32)
    /// `$KEYSHELF_PASSWORD_FILE`: the first line of that file.
    case file(String)
    /// `/dev/tty`, without echo.
    case terminal

    /// The source for the master password.
    static func master(fd: Int32?, environment: [String: String]) -> PasswordSource {
        if let fd { return .fileDescriptor(fd) }
        if let path = environment["KEYSHELF_PASSWORD_FILE"], !path.isEmpty { return .file(path) }
        return .terminal
    }

    /// The source for a new master password (`passwd`): `--new-password-fd N`,
    /// else `$KEYSHELF_NEW_PASSWORD_FILE`, else the terminal.
    static func newMaster(fd: Int32?, environment: [String: String]) -> PasswordSource {
        if let fd { return .fileDescriptor(fd) }
        if let path = environment["KEYSHELF_NEW_PASSWORD_FILE"], !path.isEmpty { return .file(path) }
        return .terminal
    }

    /// Whether the password can be read without a person at a terminal.
    var isScripted: Bool { self != .terminal }
}

/// Which password is read, so a message can say how to supply it.
enum PasswordKind: Sendable {
    /// The vault's master password (`--password-fd`, `$KEYSHELF_PASSWORD_FILE`).
    case master
    /// `passwd`'s new master password (`--new-password-fd`, `$KEYSHELF_NEW_PASSWORD_FILE`).
    case newMaster
    /// The password of a database being imported (`--source-password-fd`; no file variable).
    case source

    var name: String {
        switch self {
        case .master: "master password"
        case .newMaster: "new master password"
        case .source: "database password"
        }
    }
    var fdOption: String {
        switch self {
        case .master: "--password-fd"
        case .newMaster: "--new-password-fd"
        case .source: "--source-password-fd"
        }
    }
    var fileVariable: String { self == .master ? "KEYSHELF_PASSWORD_FILE" : "KEYSHELF_NEW_PASSWORD_FILE" }
    /// How to give it without a terminal, for messages.
    var scriptedSources: String { self == .source ? "pass \(fdOption) N" : "pass \(fdOption) N or set $\(fileVariable)" }
}

/// Reads master passwords into secure memory.
enum PasswordInput {
    /// Reads a password from `source`.
    /// - Parameters:
    ///   - prompt: shown on the terminal, e.g. "Master password: ".
    ///   - confirmPrompt: when set and reading from the terminal, the password
    ///     is asked a second time and both must match (`init`, `passwd`).
    ///   - allowEmpty: false refuses an empty line (new passwords).
    ///   - kind: which password, named in the messages with its option and variable.
    /// - Throws: `CLIError` — usage (2) when there is no terminal and no
    ///   scripted source, when the input is empty, or the two entries still
    ///   differ after `confirmationTries` tries on the terminal;
    ///   failure (1) when the file or descriptor cannot be read.
    static func read(from source: PasswordSource, terminal: () -> Terminal?, prompt: String,
                     confirmPrompt: String? = nil, allowEmpty: Bool = true,
                     kind: PasswordKind = .master) throws(CLIError) -> Secret {
        let secret: Secret?
        let origin: String
        switch source {
        case .fileDescriptor(let fd):
            origin = "file descriptor \(fd)"
            secret = try LineReader.readLine(fd: fd, source: origin)
        case .file(let path):
            origin = "the file '\(path)'"
            let fd = open(path, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else {
                throw CLIError(.failure, "cannot open \(origin) ($\(kind.fileVariable)): \(String(cString: strerror(errno)))")
            }
            defer { close(fd) }
            secret = try LineReader.readLine(fd: fd, source: origin)
        case .terminal:
            origin = "the terminal"
            guard let tty = terminal() else {
                throw CLIError(.usage, "no \(kind.name): there is no terminal to ask; \(kind.scriptedSources)")
            }
            if let confirmPrompt {
                secret = try readConfirmed(tty, prompt: prompt, confirmPrompt: confirmPrompt, allowEmpty: allowEmpty)
            } else {
                secret = try tty.readSecret(prompt: prompt)
            }
        }
        guard let secret else {
            throw CLIError(.usage, "no password: \(origin) gave no input")
        }
        if !allowEmpty && secret.byteCount == 0 {
            throw CLIError(.usage, "the password read from \(origin) is empty")
        }
        return secret
    }

    /// How many times a new password is asked on the terminal when the two entries differ (as passwd(1)).
    static let confirmationTries = 3

    /// Asks for a new password and its repetition until both match, up to
    /// `confirmationTries` times; a typo then costs a retry, not the command.
    /// An empty entry (when `allowEmpty` is false) is asked again too.
    /// - Returns: the password, or nil at end of input (Ctrl-D).
    /// - Throws: usage (2) when the entries still differ after the last try.
    private static func readConfirmed(_ tty: Terminal, prompt: String, confirmPrompt: String,
                                      allowEmpty: Bool) throws(CLIError) -> Secret? {
        for attempt in 1...confirmationTries {
            let last = attempt == confirmationTries
            guard let secret = try tty.readSecret(prompt: prompt) else { return nil }
            if !allowEmpty && secret.byteCount == 0 {
                // After the last try the caller refuses it as empty.
                if last { return secret }
                tty.write("keyshelf: the password is empty; try again\n")
                continue
            }
            guard let again = try tty.readSecret(prompt: confirmPrompt) else { return nil }
            if again == secret { return secret }
            if !last { tty.write("keyshelf: the two passwords differ; try again\n") }
        }
        throw CLIError(.usage, "the two passwords differ (\(confirmationTries) tries); nothing was changed")
    }
}
