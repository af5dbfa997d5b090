import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import KeyshelfCrypto

/// Reads the entries of a KDBX database's XML (Foundation's `XMLParser`):
/// `Group` names as the folder path (the root group left out), each
/// `Entry`'s `String` key/value pairs, `Times/CreationTime`; entries in the
/// recycle bin are skipped and `History` entries ignored. Every
/// `Protected="True"` value is base64 of text XORed with the inner stream,
/// which runs through all of them in document order, history included.
final class KDBXEntries: NSObject, XMLParserDelegate {
    private let stream: KeePassCrypto.StreamCipher?
    private let version: Int
    private var path: [String] = []
    private var text = ""
    private var protected = false
    private var groups: [(name: String, uuid: String)] = []
    private var recycleBin = ""
    private var historyDepth = 0
    private var fields: [String: Secret] = [:]
    private var fieldOrder: [String] = []
    private var key = ""
    private var value: Secret?
    private var created: Date?
    private var entryLine = 0
    private(set) var outcomes: [EntryOutcome] = []

    private init(stream: KeePassCrypto.StreamCipher?, version: Int) {
        self.stream = stream
        self.version = version
    }

    /// Reads the XML in `xml` from byte `start` on. `XMLParser` takes only a
    /// `Data`, so that part is copied once out of sodium memory (docs/import.md, a known limit).
    static func read(xml: SecureBytes, from start: Int = 0, stream: KeePassCrypto.StreamCipher?, path: String,
                     version: Int) throws -> ImportSource {
        let reader = KDBXEntries(stream: stream, version: version)
        let parser = XMLParser(data: xml.withUnsafeBytes { Data(UnsafeRawBufferPointer(rebasing: $0[start...])) })
        parser.delegate = reader
        guard parser.parse() else {
            throw TransferError.damagedDatabase(path: path, reason: "its XML is malformed at line \(parser.lineNumber)")
        }
        return ImportSource(path: path, format: .kdbx, rowCount: reader.outcomes.count, outcomes: reader.outcomes)
    }

    func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
                attributes: [String: String] = [:]) {
        path.append(name)
        text = ""
        protected = attributes["Protected"]?.lowercased() == "true"
        switch name {
        case "Group": groups.append(("", ""))
        case "History": historyDepth += 1
        case "Entry" where historyDepth == 0:
            fields = [:]
            fieldOrder = []
            created = nil
            entryLine = parser.lineNumber
        default: break
        }
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        text += string
    }

    func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
        let parent = path.count >= 2 ? path[path.count - 2] : ""
        defer { path.removeLast(); text = "" }
        switch (parent, name) {
        case ("Meta", "RecycleBinUUID"): recycleBin = text
        case ("Group", "Name"): groups[groups.count - 1].name = text
        case ("Group", "UUID"): groups[groups.count - 1].uuid = text
        case (_, "Group"): groups.removeLast()
        case (_, "History"): historyDepth -= 1
        case ("String", "Key"): key = text
        case ("String", "Value"):
            value = protected ? unprotect(text) : Secret(utf8: text)
        case ("Entry", "String"):
            if historyDepth == 0, let value, !key.isEmpty {
                if fields[key] == nil { fieldOrder.append(key) }
                fields[key] = value
            }
            value = nil
            key = ""
        case ("Times", "CreationTime") where historyDepth == 0 && path.count >= 3 && path[path.count - 3] == "Entry":
            created = parseTime(text)
        case (_, "Entry") where historyDepth == 0:
            outcomes.append(entryOutcome(number: outcomes.count + 1))
        default: break
        }
    }

    /// A protected value: base64 of its bytes XORed with the inner stream.
    private func unprotect(_ base64: String) -> Secret {
        guard var data = Data(base64Encoded: base64.trimmingCharacters(in: .whitespacesAndNewlines)) else { return Secret(utf8: "") }
        let out = SecureBytes(copying: data)
        data.withUnsafeMutableBytes { _ = $0.initializeMemory(as: UInt8.self, repeating: 0) }
        out.withUnsafeMutableBytes { stream?.apply($0) }
        return Secret(out)
    }

    /// KDBX 4: base64 of seconds since 0001-01-01 (little-endian Int64); KDBX 3.1: ISO 8601.
    private func parseTime(_ text: String) -> Date? {
        if version == 4, let data = Data(base64Encoded: text), data.count == 8 { return Self.kdbx4Time(Array(data)) }
        return ISO8601DateFormatter().date(from: text)
    }

    /// KDBX 4's 8 bytes of seconds since 0001-01-01; nil outside years 1–9999
    /// (a hostile Int64.min would otherwise overflow the subtraction and trap).
    static func kdbx4Time(_ bytes: [UInt8]) -> Date? {
        let seconds = bytes.reversed().reduce(Int64(0)) { $0 << 8 | Int64($1) }
        guard (0...315_537_897_599).contains(seconds) else { return nil }
        return Date(timeIntervalSince1970: TimeInterval(seconds - 62_135_596_800))
    }

    static let standardKeys: Set<String> = ["Title", "UserName", "Password", "URL", "Notes", "otp", "TOTP Seed", "TOTP Settings"]

    private func string(_ key: String) -> String { fields[key]?.unsafeString() ?? "" }

    private func entryOutcome(number: Int) -> EntryOutcome {
        let position = RowPosition(row: number, line: entryLine, noun: "entry")
        let title = string("Title")
        if !recycleBin.isEmpty, groups.contains(where: { $0.uuid == recycleBin }) {
            return .skipped(ReportedRow(position: position, server: title, account: string("UserName"), reason: "in the recycle bin"))
        }
        var uris = [string("URL")]
        var notes = string("Notes")
        for key in fieldOrder where !Self.standardKeys.contains(key) {
            if key.hasPrefix("KP2A_URL") { uris.append(string(key)); continue }
            notes += (notes.isEmpty ? "" : "\n") + "\(key): \(string(key))"
        }
        var otp = string("otp")
        if otp.isEmpty, !string("TOTP Seed").isEmpty {
            let seed = string("TOTP Seed").filter { $0 != " " }
            let settings = string("TOTP Settings").split(separator: ";").map(String.init)
            let period = settings.first.flatMap { Int($0) } ?? 30
            if settings.count > 1, settings[1] == "S" {
                otp = "steam://\(seed)"
            } else {
                let digits = settings.count > 1 ? Int(settings[1]) ?? 6 : 6
                otp = "otpauth://totp/KeePass?secret=\(seed)&period=\(period)&digits=\(digits)"
            }
        }
        return .entry(ImportEntry(
            position: position, uris: uris, account: string("UserName"), password: fields["Password"] ?? Secret(utf8: ""),
            title: title, folder: groups.dropFirst().map(\.name).joined(separator: "/"), notes: notes, otpauth: otp,
            creationDate: created))
    }
}
