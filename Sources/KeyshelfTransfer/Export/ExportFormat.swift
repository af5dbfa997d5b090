/// The file formats `keyshelf export` writes (docs/import.md, "Export").
public enum ExportFormat: String, Sendable, CaseIterable {
    /// Chrome's CSV, `name,url,username,password,note`: what most browsers and managers import; no OTP column.
    case chrome
    /// Bitwarden's CSV (`folder,…,login_totp`): folders and `otpauth://` secrets included.
    case bitwarden
    /// Bitwarden's unencrypted JSON export (`encrypted: false`): folders, notes,
    /// TOTP and dates; the format most managers re-import with TOTP.
    case bitwardenJSON = "bitwarden-json"

    /// The name shown to users.
    public var displayName: String {
        switch self {
        case .chrome: "Chrome CSV"
        case .bitwarden: "Bitwarden CSV"
        case .bitwardenJSON: "Bitwarden JSON"
        }
    }

    /// Whether the format has a column for an item's `otpauth://` secret.
    public var carriesOneTimeSecrets: Bool { self != .chrome }

    /// Whether the format has a place for Android app logins (`androidapp://PACKAGE`); Chrome's needs the app's signing hash.
    public var carriesAppLogins: Bool { self != .chrome }
}

/// Where an export goes: a new file, or standard output (`-`).
public enum ExportDestination: Sendable, Equatable {
    /// A new file at the path, created with mode 0600; an existing file is never overwritten.
    case file(String)
    /// File descriptor 1, left open.
    case standardOutput

    /// `-` means standard output (issue 17 item 3), anything else a file path.
    public init(argument: String) {
        self = argument == "-" ? .standardOutput : .file(argument)
    }

    /// The path, or "standard output", for messages.
    public var name: String {
        switch self {
        case .file(let path): path
        case .standardOutput: "standard output"
        }
    }
}
