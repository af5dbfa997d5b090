/// The identifier of a client that asks for shared credentials (DESIGN §1, §12).
///
/// Either an Apple app identifier, `PREFIX.bundle.id` (a 10-character
/// prefix of `A–Z` and `0–9`, usually the team ID, then a bundle ID of
/// letters, digits, `-` and `.`), the form a site lists in
/// `webcredentials.apps`; or a client name the user gives a local program
/// (`git`): lower-case letters, digits, `-` and `_`, starting with a letter,
/// at most 32 characters, no dot (so the two forms never overlap).
public struct AppIdentifier: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The identifier as given (already checked).
    public let value: String

    /// Whether it is an app identifier (`PREFIX.bundle.id`) rather than a client name.
    public var isApp: Bool { Self.isAppForm(value) }

    /// Longest identifier accepted, in bytes (Apple limits bundle IDs to 155 characters).
    public static let maximumByteCount = 200

    /// Checks `text` and keeps it.
    /// - Throws: `AssociationError.invalidAppIdentifier` naming the expected forms.
    public init(_ text: String) throws(AssociationError) {
        guard Self.isAppForm(text) || Self.isNameForm(text) else {
            throw AssociationError(.invalidAppIdentifier, "\(InertText.quoted(text)) is not an app identifier: use TEAMID.bundle.id (a 10-character team ID of A-Z and 0-9, e.g. ABCDE12345.com.example.app) or a client name of lower-case letters, digits, - and _ (e.g. git)")
        }
        value = text
    }

    /// `PREFIX.bundle.id`: 10 upper-case letters or digits, a dot, then a
    /// non-empty bundle ID whose dot-separated parts are non-empty.
    public static func isAppForm(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.count > 11, bytes.count <= maximumByteCount, bytes[10] == UInt8(ascii: ".") else { return false }
        guard bytes[..<10].allSatisfy({ isUpper($0) || isDigit($0) }) else { return false }
        let bundle = bytes[11...]
        guard bundle.allSatisfy({ isUpper($0) || isLower($0) || isDigit($0) || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: ".") })
        else { return false }
        return !bundle.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false).contains { $0.isEmpty }
    }

    /// A client name: `[a-z][a-z0-9_-]{0,31}`.
    public static func isNameForm(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard let first = bytes.first, isLower(first), bytes.count <= 32 else { return false }
        return bytes.allSatisfy { isLower($0) || isDigit($0) || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_") }
    }

    private static func isUpper(_ b: UInt8) -> Bool { b >= 0x41 && b <= 0x5A }
    private static func isLower(_ b: UInt8) -> Bool { b >= 0x61 && b <= 0x7A }
    private static func isDigit(_ b: UInt8) -> Bool { b >= 0x30 && b <= 0x39 }

    public var description: String { value }

    public static func < (a: AppIdentifier, b: AppIdentifier) -> Bool { a.value < b.value }
}
