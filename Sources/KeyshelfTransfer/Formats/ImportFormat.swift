/// The CSV export formats keyshelf reads, each known by its header line (DESIGN §9).
///
/// Columns are matched by name, case-insensitively, so older exports with
/// fewer columns still work; columns a format does not use are reported as ignored.
public enum ImportFormat: String, Sendable, CaseIterable, Codable {
    /// Chromium / Chrome / Edge: `name,url,username,password,note` (older: without `note`).
    case chrome
    /// Firefox: `url,username,password,httpRealm,formActionOrigin,guid,timeCreated,timeLastUsed,timePasswordChanged`.
    case firefox
    /// Bitwarden: `folder,favorite,type,name,notes,fields,reprompt,login_uri,login_username,login_password,login_totp`.
    case bitwarden
    /// KeePassXC: `Group,Title,Username,Password,URL,Notes,TOTP,Icon,Last Modified,Created`.
    case keepassxc
    /// Safari / Apple Passwords: `Title,URL,Username,Password,Notes,OTPAuth`.
    case safari
    /// 1Password 8: `Title,Url,Username,Password,OTPAuth,Favorite,Archived,Tags,Notes`.
    case onePassword = "1password"
    /// LastPass: `url,username,password,extra,name,grouping,fav`.
    case lastpass
    /// Bitwarden's unencrypted JSON export (not CSV; `BitwardenJSONReader`).
    case bitwardenJSON = "bitwarden-json"
    /// A KeePass 2 database, KDBX 3.1 or 4 (`KDBXReader`).
    case kdbx
    /// A pass or gopass store: a directory of gpg-encrypted files (`PassStoreReader`).
    case pass

    /// The CSV formats, the ones a header line is matched against.
    public static let csvFormats: [ImportFormat] = [.chrome, .firefox, .bitwarden, .keepassxc, .safari, .onePassword, .lastpass]

    /// Whether the format is a CSV file with a header line.
    public var isCSV: Bool { Self.csvFormats.contains(self) }

    /// The name shown to users.
    public var displayName: String {
        switch self {
        case .chrome: "Chrome"
        case .firefox: "Firefox"
        case .bitwarden: "Bitwarden"
        case .keepassxc: "KeePassXC"
        case .safari: "Safari / Apple Passwords"
        case .onePassword: "1Password"
        case .lastpass: "LastPass"
        case .bitwardenJSON: "Bitwarden JSON"
        case .pass: "pass store"
        case .kdbx: "KeePass database"
        }
    }

    /// The meaning of a column for keyshelf.
    public enum Role: Sendable, Equatable {
        case title, url, account, password, notes, otpauth
        /// Folder or group (Bitwarden `folder`, KeePassXC `Group`, LastPass `grouping`), kept in the label.
        case folder
        /// Firefox's `httpRealm` (HTTP authentication), kept in the notes.
        case realm
        /// Bitwarden's custom fields (`fields`, `NAME: VALUE` lines), appended to the notes.
        case fields
        /// Bitwarden's item type (`login`, `note`, `card`, `identity`).
        case itemType
    }

    /// Every column the format's current version writes (lower case), with
    /// the role keyshelf gives it; nil roles are known but unused.
    var columns: [(name: String, role: Role?)] {
        switch self {
        case .chrome:
            [("name", .title), ("url", .url), ("username", .account), ("password", .password), ("note", .notes)]
        case .firefox:
            [("url", .url), ("username", .account), ("password", .password), ("httprealm", .realm),
             ("formactionorigin", nil), ("guid", nil), ("timecreated", nil), ("timelastused", nil),
             ("timepasswordchanged", nil)]
        case .bitwarden:
            [("folder", .folder), ("favorite", nil), ("type", .itemType), ("name", .title), ("notes", .notes),
             ("fields", .fields), ("reprompt", nil), ("login_uri", .url), ("login_username", .account),
             ("login_password", .password), ("login_totp", .otpauth)]
        case .keepassxc:
            [("group", .folder), ("title", .title), ("username", .account), ("password", .password), ("url", .url),
             ("notes", .notes), ("totp", .otpauth), ("icon", nil), ("last modified", nil), ("created", nil)]
        case .safari:
            [("title", .title), ("url", .url), ("username", .account), ("password", .password),
             ("notes", .notes), ("otpauth", .otpauth)]
        case .onePassword:
            [("title", .title), ("url", .url), ("username", .account), ("password", .password),
             ("otpauth", .otpauth), ("favorite", nil), ("archived", nil), ("tags", nil), ("notes", .notes)]
        case .lastpass:
            [("url", .url), ("username", .account), ("password", .password), ("extra", .notes),
             ("name", .title), ("grouping", .folder), ("fav", nil), ("totp", .otpauth)]
        case .bitwardenJSON, .pass, .kdbx:
            []
        }
    }

    /// Columns that every version of the format has; detection needs all of them.
    var requiredColumns: [String] {
        switch self {
        case .chrome: ["name", "url", "username", "password"]
        case .firefox: ["url", "username", "password"]
        case .bitwarden: ["type", "name", "login_uri", "login_username", "login_password"]
        case .keepassxc: ["group", "title", "username", "password", "url"]
        case .safari, .onePassword: ["title", "url", "username", "password"]
        case .lastpass: ["url", "username", "password", "extra"]
        case .bitwardenJSON, .pass, .kdbx: []
        }
    }

    /// The name a header column is matched by: lower case, and for a
    /// localised header of the form `Label(key)` (`Nom d'utilisateur(username)`) the key in parentheses.
    static func columnKey(_ name: String) -> String {
        let lowered = name.lowercased()
        guard lowered.hasSuffix(")"), let open = lowered.lastIndex(of: "("), open != lowered.startIndex else { return lowered }
        let key = String(lowered[lowered.index(after: open)..<lowered.index(before: lowered.endIndex)]).trimmingSpaces()
        return key.isEmpty ? lowered : key
    }

    /// The format whose header the given column names match best: every
    /// required column present, then the most known columns; ties go to the
    /// earlier case (so Safari's six columns, which 1Password also has, read
    /// as Safari unless 1Password's own `Favorite`/`Archived`/`Tags` appear).
    /// Returns nil when no format fits.
    public static func detect(header: [String]) -> ImportFormat? {
        let names = Set(header.map(columnKey))
        var best: (format: ImportFormat, score: Int)?
        for format in csvFormats where format.requiredColumns.allSatisfy(names.contains) {
            let score = format.columns.filter { names.contains($0.name) }.count
            if best == nil || score > best!.score { best = (format, score) }
        }
        return best?.format
    }
}
