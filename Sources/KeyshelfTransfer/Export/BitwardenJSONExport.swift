import Foundation
import KeyshelfCrypto
import KeyshelfVault

/// Bitwarden's unencrypted JSON export (`bw export --format json`), written
/// by hand into sodium memory so passwords never become Swift strings:
///
/// ```
/// {"encrypted":false,
///  "folders":[{"id":"UUID","name":"Work"}],
///  "items":[{"id":"UUID","organizationId":null,"folderId":"UUID"|null,"type":1,"reprompt":0,
///            "name":"…","notes":"…"|null,"favorite":false,
///            "login":{"uris":[{"match":null,"uri":"https://…/"}],"username":"…","password":"…","totp":"otpauth://…"|null},
///            "collectionIds":null,"creationDate":"2024-01-02T03:04:05.000Z","revisionDate":"…"}]}
/// ```
///
/// One Bitwarden item per keyshelf item (one URI each); folders come from
/// the label's `FOLDER/TITLE` form (`LabelPath`), one folder per distinct path.
enum BitwardenJSONExport {
    static func render(_ rows: [Item]) -> SecureBytes {
        var folderIDs: [String: UUID] = [:]
        var folders: [String] = []
        for item in rows {
            let folder = LabelPath(label: PasswordExport.title(item)).folder
            if !folder.isEmpty, folderIDs[folder] == nil {
                folderIDs[folder] = UUID()
                folders.append(folder)
            }
        }
        let out = SecureTextBuffer()
        out.append("{\"encrypted\":false,\"folders\":[")
        for (i, folder) in folders.enumerated() {
            out.append(i == 0 ? "{" : ",{")
            out.append("\"id\":\(quoted(id(folderIDs[folder]!))),\"name\":\(quoted(folder))}")
        }
        out.append("],\"items\":[")
        for (i, item) in rows.enumerated() {
            let path = LabelPath(label: PasswordExport.title(item))
            out.append(i == 0 ? "{" : ",{")
            out.append("\"id\":\(quoted(id(item.id))),\"organizationId\":null,")
            out.append("\"folderId\":\(folderIDs[path.folder].map { quoted(id($0)) } ?? "null"),")
            out.append("\"type\":1,\"reprompt\":0,\"name\":\(quoted(path.title)),")
            out.append("\"notes\":\(item.comment.isEmpty ? "null" : quoted(item.comment)),\"favorite\":false,")
            out.append("\"login\":{\"uris\":[{\"match\":null,\"uri\":\(quoted(PasswordExport.url(item)))}],")
            out.append("\"username\":\(quoted(PasswordExport.account(item))),\"password\":")
            item.password!.withUnsafeBytes { appendQuoted($0, to: out) }
            out.append(",\"totp\":\(item.otpauth.isEmpty ? "null" : quoted(item.otpauth))},")
            out.append("\"collectionIds\":null,\"creationDate\":\(quoted(timestamp(item.creationDate))),")
            out.append("\"revisionDate\":\(quoted(timestamp(item.modificationDate)))}")
        }
        out.append("]}\n")
        return out.contents()
    }

    private static func id(_ uuid: UUID) -> String { uuid.uuidString.lowercased() }

    /// `2024-01-02T03:04:05.000Z`, as Bitwarden writes dates.
    static func timestamp(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: date)
    }

    /// `text` as a JSON string literal.
    private static func quoted(_ text: String) -> String {
        let buffer = SecureTextBuffer()
        var copy = text
        copy.withUTF8 { appendQuoted(UnsafeRawBufferPointer($0), to: buffer) }
        return buffer.contents().withUnsafeBytes { String(decoding: $0, as: UTF8.self) }
    }

    /// Appends `bytes` (UTF-8) as a JSON string literal (RFC 8259 §7):
    /// `"` and `\` escaped, control characters as `\n`, `\r`, `\t` or `\u00XX`.
    /// Runs of plain bytes are copied straight from `bytes`, so a password
    /// is never held outside sodium memory.
    static func appendQuoted(_ bytes: UnsafeRawBufferPointer, to out: SecureTextBuffer) {
        out.append("\"")
        var runStart = 0
        for (i, byte) in bytes.enumerated() {
            let escape: String? = switch byte {
            case UInt8(ascii: "\""): "\\\""
            case UInt8(ascii: "\\"): "\\\\"
            case 0x0A: "\\n"
            case 0x0D: "\\r"
            case 0x09: "\\t"
            case 0..<0x20: "\\u00" + (byte < 0x10 ? "0" : "") + String(byte, radix: 16)
            default: nil
            }
            guard let escape else { continue }
            out.append(UnsafeRawBufferPointer(rebasing: bytes[runStart..<i]))
            out.append(escape)
            runStart = i + 1
        }
        out.append(UnsafeRawBufferPointer(rebasing: bytes[runStart..<bytes.count]))
        out.append("\"")
    }
}
