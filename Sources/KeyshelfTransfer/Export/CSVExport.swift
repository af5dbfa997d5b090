import CCSV
import KeyshelfCrypto
import KeyshelfVault

/// CSV exports: every field quoted by libcsv's `csv_write`, LF line ends,
/// assembled in sodium memory.
enum CSVExport {
    /// One column: its header name and how an item fills it.
    struct Column: Sendable {
        let name: String
        let value: @Sendable (Item) -> Field
    }

    /// Chrome's `name,url,username,password,note` (DESIGN §9).
    static let chrome: [Column] = [
        Column(name: "name") { .text(PasswordExport.title($0)) },
        Column(name: "url") { .text(PasswordExport.url($0)) },
        Column(name: "username") { .text(PasswordExport.account($0)) },
        Column(name: "password") { .secret($0.password!) },
        Column(name: "note") { .text($0.comment) },
    ]

    /// Bitwarden's CSV (DESIGN §9); `folder` and `name` from the label (`LabelPath`), `login_totp` the otpauth URI.
    static let bitwarden: [Column] = [
        Column(name: "folder") { .text(LabelPath(label: PasswordExport.title($0)).folder) },
        Column(name: "favorite") { _ in .text("") },
        Column(name: "type") { _ in .text("login") },
        Column(name: "name") { .text(LabelPath(label: PasswordExport.title($0)).title) },
        Column(name: "notes") { .text($0.comment) },
        Column(name: "fields") { _ in .text("") },
        Column(name: "reprompt") { _ in .text("0") },
        Column(name: "login_uri") { .text(PasswordExport.url($0)) },
        Column(name: "login_username") { .text(PasswordExport.account($0)) },
        Column(name: "login_password") { .secret($0.password!) },
        Column(name: "login_totp") { .text($0.otpauth) },
    ]

    /// The CSV text of `rows` (header first) in sodium memory.
    static func render(_ rows: [Item], columns: [Column]) -> SecureBytes {
        let records: [[Field]] = [columns.map { .text($0.name) }] + rows.map { item in columns.map { $0.value(item) } }
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

    /// A field's value: plain text, or a password kept in sodium memory.
    enum Field: Sendable {
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
