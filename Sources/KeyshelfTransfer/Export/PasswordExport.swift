import Glibc
import KeyshelfCredentials
import KeyshelfCrypto
import KeyshelfVault

/// Writes internet passwords as Chrome CSV, Bitwarden CSV or Bitwarden JSON
/// (`ExportFormat`, DESIGN §9, issue 5 item 6, issue 17 item 5).
///
/// A file is created with `O_CREAT | O_EXCL` and mode 0600, so it is never
/// readable by others, not even for a moment, and an existing file is never
/// overwritten; `-` writes to standard output. The content is assembled in
/// sodium memory; the output itself is **not encrypted**.
public enum PasswordExport {
    /// The plain warning to show (and have confirmed) before exporting.
    ///
    /// Values are written exactly, so a field starting with `=`, `+`, `-` or
    /// `@` stays as it is (changing it would change a password): the warning
    /// says the file is for a password manager, not a spreadsheet.
    public static func warning(path: String, count: Int) -> String {
        "\(count) password(s) will be written to \(path) in plain text. The file is NOT encrypted: "
            + "anyone who can read it can read every password. Delete it once you have imported it elsewhere. "
            + "The file is for importing into a password manager or browser: do not open it in a spreadsheet, "
            + "which can run a field starting with =, +, - or @ as a formula."
    }

    /// The items an export of `items` writes: live internet passwords with a
    /// password, once per `(server, scheme, port, account)`, in order, except
    /// those the file cannot carry (`isWritable`).
    ///
    /// The first item for a key wins, so callers pass the local store's items
    /// before the shared ones: the login flow's order (DESIGN §4), and what
    /// `get` returns. A later item for the same key is left out — silently
    /// when its password is the same, counted as shadowed otherwise — because
    /// import refuses a file that gives one key two passwords (docs/import.md).
    /// Chrome's format has no place for Android app logins (`androidapp://`), which it then leaves out.
    public static func exportable(_ items: [Item], format: ExportFormat = .chrome) -> [Item] {
        selection(items, format: format).rows
    }

    /// Whether `item` can be written so that import reads it back: its
    /// password is UTF-8 text without NUL (`PasswordText`) and its other
    /// fields hold no NUL. Items saved before add refused such passwords may not.
    static func isWritable(_ item: Item) -> Bool {
        guard let password = item.password, PasswordText.isValid(password) else { return false }
        return ![item.label, item.account, item.comment, item.path, item.otpauth].contains { $0.utf8.contains(0) }
    }

    /// `exportable(items)`, how many items with another password it left out,
    /// and how many it left out because the file cannot carry them.
    ///
    /// An unwritable item still claims its key: writing a shadowed item's
    /// password in its place would silently change what `get` returns.
    static func selection(_ items: [Item], format: ExportFormat = .chrome) -> (rows: [Item], shadowed: Int, unwritable: Int) {
        var kept: [InternetItemKey: Secret] = [:]
        var rows: [Item] = []
        var shadowed = 0
        var unwritable = 0
        for item in items where !item.isDeleted && item.itemClass == .internetPassword
            && (format.carriesAppLogins || !isAppLogin(item)) {
            guard let password = item.password, let key = InternetItemKey(item) else { continue }
            if let first = kept[key] {
                if first != password { shadowed += 1 }
                continue
            }
            kept[key] = password
            if isWritable(item) { rows.append(item) } else { unwritable += 1 }
        }
        return (rows, shadowed, unwritable)
    }

    /// What an export wrote.
    public struct Summary: Sendable, Equatable {
        /// Rows written (items), excluding the header.
        public let written: Int
        /// Items left out because the format cannot hold them (generic passwords).
        public let notExportable: Int
        /// Exported items whose `otpauth://` secret has no column in the format (Chrome's).
        public let otpauthLeftOut: Int
        /// Items left out because an earlier item (the local store's) has the
        /// same server, scheme, port and account but another password.
        public let shadowed: Int
        /// Items left out because their password is not UTF-8 text without NUL
        /// (or another field holds NUL), so the file could not be imported
        /// back (`isWritable`); only items saved before add refused such passwords.
        public let unwritable: Int
        /// Android app logins left out because the format has no place for them (Chrome's).
        public let appLoginsLeftOut: Int

        public init(written: Int, notExportable: Int, otpauthLeftOut: Int, shadowed: Int, unwritable: Int = 0,
                    appLoginsLeftOut: Int = 0) {
            self.appLoginsLeftOut = appLoginsLeftOut
            self.written = written
            self.notExportable = notExportable
            self.otpauthLeftOut = otpauthLeftOut
            self.shadowed = shadowed
            self.unwritable = unwritable
        }
    }

    /// Writes `exportable(items)` in `format` to a new file at `path` (mode 0600).
    /// - Throws: as `write(_:to:format:)`.
    @discardableResult
    public static func write(_ items: [Item], to path: String, format: ExportFormat = .chrome) throws -> Summary {
        try write(items, to: .file(path), format: format)
    }

    /// Writes `exportable(items)` in `format` to `destination`; pass the local
    /// store's items first (see `exportable`).
    /// - Throws: `TransferError.unwritable` when the file exists or cannot be
    ///   created or written (a partly written file is removed), or standard output fails.
    @discardableResult
    public static func write(_ items: [Item], to destination: ExportDestination, format: ExportFormat) throws -> Summary {
        let (rows, shadowed, unwritable) = selection(items, format: format)
        let content: SecureBytes = switch format {
        case .chrome: CSVExport.render(rows, columns: CSVExport.chrome)
        case .bitwarden: CSVExport.render(rows, columns: CSVExport.bitwarden)
        case .bitwardenJSON: BitwardenJSONExport.render(rows)
        }
        switch destination {
        case .file(let path): try writeNewFile(content, path: path)
        case .standardOutput: try writeAll(content, fd: 1, name: destination.name)
        }
        let generic = items.filter { !$0.isDeleted && $0.itemClass == .genericPassword }.count
        let apps = format.carriesAppLogins ? 0 : items.filter { !$0.isDeleted && isAppLogin($0) }.count
        let otpLeftOut = format.carriesOneTimeSecrets ? 0 : rows.filter { !$0.otpauth.isEmpty }.count
        return Summary(written: rows.count, notExportable: generic, otpauthLeftOut: otpLeftOut,
                       shadowed: shadowed, unwritable: unwritable, appLoginsLeftOut: apps)
    }

    private static func writeNewFile(_ content: SecureBytes, path: String) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            let reason = errno == EEXIST ? "the file already exists; choose a new name" : String(cString: strerror(errno))
            throw TransferError.unwritable(path: path, reason: reason)
        }
        do {
            defer { close(fd) }
            guard fchmod(fd, 0o600) == 0 else { throw TransferError.unwritable(path: path, reason: String(cString: strerror(errno))) }
            try writeAll(content, fd: fd, name: path)
            guard fsync(fd) == 0 else { throw TransferError.unwritable(path: path, reason: String(cString: strerror(errno))) }
        } catch {
            unlink(path)
            throw error
        }
    }

    private static func writeAll(_ content: SecureBytes, fd: Int32, name: String) throws {
        try content.withUnsafeBytes { bytes in
            var done = 0
            while done < bytes.count {
                let n = Glibc.write(fd, bytes.baseAddress! + done, bytes.count - done)
                if n < 0 {
                    if errno == EINTR { continue }
                    throw TransferError.unwritable(path: name, reason: String(cString: strerror(errno)))
                }
                done += n
            }
        }
    }

    /// Whether `item` is an Android app login (protocol `androidapp`, server the package name).
    static func isAppLogin(_ item: Item) -> Bool {
        item.itemClass == .internetPassword && item.protocol == EntryMapper.appScheme
    }

    /// The user name to write: "" for a login imported without one (`ImportEntry.noUserName`).
    static func account(_ item: Item) -> String {
        item.account == ImportEntry.noUserName ? "" : item.account
    }

    /// `scheme://host[:port]/path`, host in A-label form (IPv6 in brackets);
    /// `androidapp://PACKAGE` for an app login.
    static func url(_ item: Item) -> String {
        if isAppLogin(item) { return "\(EntryMapper.appScheme)://\(item.server)" }
        let server = ServerName(host: item.server, port: item.port, scheme: item.protocol)
        let host = server.isIPv6 ? "[\(server.host)]" : server.host
        let port = server.port == 0 ? "" : ":\(server.port)"
        let path = item.path.isEmpty ? "/" : (item.path.hasPrefix("/") ? item.path : "/" + item.path)
        return "\(server.scheme)://\(host)\(port)\(path)"
    }

    /// The item's label, or the server's display form when it has none.
    static func title(_ item: Item) -> String {
        item.label.isEmpty ? ServerName(host: item.server, port: item.port, scheme: item.protocol).display : item.label
    }
}
