import CCSV
import Glibc
import KeyshelfCredentials
import KeyshelfCrypto
import KeyshelfVault

/// Writes internet passwords as a Chrome password CSV
/// (`name,url,username,password,note`, DESIGN §9), the format most password
/// managers and browsers import (issue 5, item 6).
///
/// The file is created with `O_CREAT | O_EXCL` and mode 0600, so it is never
/// readable by others, not even for a moment, and an existing file is never
/// overwritten. Every field is quoted by libcsv's `csv_write`. The content is
/// assembled in sodium memory; the file itself is **not encrypted**.
public enum ChromeExport {
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

    /// The Chrome header line's columns.
    public static let header = ["name", "url", "username", "password", "note"]

    /// The items an export of `items` writes: live internet passwords with a
    /// password, once per `(server, scheme, port, account)`, in order, except
    /// those the file cannot carry (`isWritable`).
    ///
    /// The first item for a key wins, so callers pass the local store's items
    /// before the shared ones: the login flow's order (DESIGN §4), and what
    /// `get` returns. A later item for the same key is left out — silently
    /// when its password is the same, counted as shadowed otherwise — because
    /// import refuses a file that gives one key two passwords (docs/import.md).
    public static func exportable(_ items: [Item]) -> [Item] {
        selection(items).rows
    }

    /// Whether `item` can be written so that import reads it back: its
    /// password is UTF-8 text without NUL (`PasswordText`) and its other
    /// fields hold no NUL. Items saved before add refused such passwords may not.
    static func isWritable(_ item: Item) -> Bool {
        guard let password = item.password, PasswordText.isValid(password) else { return false }
        return ![item.label, item.account, item.comment, item.path].contains { $0.utf8.contains(0) }
    }

    /// `exportable(items)`, how many items with another password it left out,
    /// and how many it left out because the file cannot carry them.
    ///
    /// An unwritable item still claims its key: writing a shadowed item's
    /// password in its place would silently change what `get` returns.
    static func selection(_ items: [Item]) -> (rows: [Item], shadowed: Int, unwritable: Int) {
        var kept: [ItemKey: Secret] = [:]
        var rows: [Item] = []
        var shadowed = 0
        var unwritable = 0
        for item in items where !item.isDeleted && item.itemClass == .internetPassword {
            guard let password = item.password, let key = ItemKey(item) else { continue }
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
        /// Items left out because Chrome's format cannot hold them (generic passwords).
        public let notExportable: Int
        /// Exported items whose `otpauth://` secret has no column in Chrome's format.
        public let otpauthLeftOut: Int
        /// Items left out because an earlier item (the local store's) has the
        /// same server, scheme, port and account but another password.
        public let shadowed: Int
        /// Items left out because their password is not UTF-8 text without NUL
        /// (or another field holds NUL), so the file could not be imported
        /// back (`isWritable`); only items saved before add refused such passwords.
        public let unwritable: Int

        public init(written: Int, notExportable: Int, otpauthLeftOut: Int, shadowed: Int, unwritable: Int = 0) {
            self.written = written
            self.notExportable = notExportable
            self.otpauthLeftOut = otpauthLeftOut
            self.shadowed = shadowed
            self.unwritable = unwritable
        }
    }

    /// Writes `exportable(items)` to a new file at `path` (mode 0600); pass
    /// the local store's items first (see `exportable`).
    /// - Throws: `TransferError.unwritable` when the file exists or cannot be
    ///   created or written; a partly written file is removed.
    @discardableResult
    public static func write(_ items: [Item], to path: String) throws -> Summary {
        let (rows, shadowed, unwritable) = selection(items)
        let content = render(rows)
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            let reason = errno == EEXIST ? "the file already exists; choose a new name" : String(cString: strerror(errno))
            throw TransferError.unwritable(path: path, reason: reason)
        }
        do {
            defer { close(fd) }
            guard fchmod(fd, 0o600) == 0 else { throw TransferError.unwritable(path: path, reason: String(cString: strerror(errno))) }
            try content.withUnsafeBytes { bytes in
                var done = 0
                while done < bytes.count {
                    let n = Glibc.write(fd, bytes.baseAddress! + done, bytes.count - done)
                    if n < 0 {
                        if errno == EINTR { continue }
                        throw TransferError.unwritable(path: path, reason: String(cString: strerror(errno)))
                    }
                    done += n
                }
            }
            guard fsync(fd) == 0 else { throw TransferError.unwritable(path: path, reason: String(cString: strerror(errno))) }
        } catch {
            unlink(path)
            throw error
        }
        let generic = items.filter { !$0.isDeleted && $0.itemClass == .genericPassword }.count
        return Summary(written: rows.count, notExportable: generic, otpauthLeftOut: rows.filter { !$0.otpauth.isEmpty }.count,
                       shadowed: shadowed, unwritable: unwritable)
    }

    /// The CSV text of `rows` (header first, LF line ends) in sodium memory.
    static func render(_ rows: [Item]) -> SecureBytes {
        let records: [[Field]] = [header.map { .text($0) }] + rows.map { item in
            let server = ServerName(host: item.server, port: item.port, scheme: item.protocol)
            return [.text(item.label.isEmpty ? server.display : item.label), .text(url(item, server)),
                    .text(item.account), .secret(item.password!), .text(item.comment)]
        }
        var size = 0
        for record in records {
            for field in record { size += field.withBytes { csv_write(nil, 0, $0.baseAddress, $0.count) } }
            size += record.count
        }
        let out = SecureBytes(byteCount: size)
        out.withUnsafeMutableBytes { buffer in
            var at = 0
            for record in records {
                for (i, field) in record.enumerated() {
                    at += field.withBytes { csv_write(buffer.baseAddress! + at, size - at, $0.baseAddress, $0.count) }
                    buffer[at] = i == record.count - 1 ? 0x0A : 0x2C
                    at += 1
                }
            }
        }
        return out
    }

    /// `scheme://host[:port]/path`, host in A-label form (IPv6 in brackets).
    static func url(_ item: Item, _ server: ServerName) -> String {
        let host = server.isIPv6 ? "[\(server.host)]" : server.host
        let port = server.port == 0 ? "" : ":\(server.port)"
        let path = item.path.isEmpty ? "/" : (item.path.hasPrefix("/") ? item.path : "/" + item.path)
        return "\(server.scheme)://\(host)\(port)\(path)"
    }

    private enum Field {
        case text(String)
        case secret(Secret)

        func withBytes<R>(_ body: (UnsafeRawBufferPointer) -> R) -> R {
            switch self {
            case .text(let string):
                var copy = string
                return copy.withUTF8 { body(UnsafeRawBufferPointer($0)) }
            case .secret(let secret):
                return secret.withUnsafeBytes(body)
            }
        }
    }
}
