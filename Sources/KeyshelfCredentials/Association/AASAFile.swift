import Foundation

/// An `apple-app-site-association` file as a site serves it: the JSON
/// object whose `webcredentials.apps` array lists the app identifiers allowed
/// to use the site's shared credentials (DESIGN §12, REFERENCE "apple-app-site-association").
///
/// Read strictly: at most `maximumByteCount` bytes, UTF-8 without a
/// byte-order mark, one JSON object, nesting at most `maximumDepth` deep,
/// `webcredentials` an object and `apps` an array of strings. Entries that
/// are not in `PREFIX.bundle.id` form are kept in `invalidEntries` (reported,
/// never matched). Other sections (`applinks`, `appclips`, …) are ignored.
public struct AASAFile: Sendable, Equatable {
    /// The paths tried, in order: the well-known one, then the root.
    public static let paths = ["/.well-known/apple-app-site-association", "/apple-app-site-association"]
    /// Largest file accepted, in bytes: 128 KB, Apple's limit since iOS 9.3.1.
    public static let maximumByteCount = 128 * 1024
    /// Deepest nesting of arrays and objects accepted (the real format needs 4).
    public static let maximumDepth = 32

    /// The valid entries of `webcredentials.apps`, in file order.
    public var apps: [AppIdentifier]
    /// Entries of `webcredentials.apps` that are not `PREFIX.bundle.id` (shown inert).
    public var invalidEntries: [String]

    /// Whether `app` is listed.
    public func lists(_ app: AppIdentifier) -> Bool { apps.contains(app) }

    /// Parses a file body.
    /// - Throws: `AssociationError.fileTooLarge` over `maximumByteCount`;
    ///   `.malformedFile` for a byte-order mark, text that is not UTF-8 JSON,
    ///   a top level that is not an object, nesting deeper than
    ///   `maximumDepth`, no `webcredentials` object, or `apps` missing or not
    ///   an array of strings. The message says which.
    public init(parsing bytes: [UInt8]) throws(AssociationError) {
        guard bytes.count <= Self.maximumByteCount else {
            throw AssociationError(.fileTooLarge, "the file is \(bytes.count) bytes, over the limit of \(Self.maximumByteCount) bytes (128 KB)")
        }
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) {
            throw AssociationError(.malformedFile, "the file starts with a UTF-8 byte-order mark; serve plain JSON without it")
        }
        guard String(validating: bytes, as: UTF8.self) != nil else {
            throw AssociationError(.malformedFile, "the file is not UTF-8 text")
        }
        let depth = Self.nestingDepth(bytes)
        guard depth <= Self.maximumDepth else {
            throw AssociationError(.malformedFile, "the JSON is nested \(depth) levels deep, more than the \(Self.maximumDepth) accepted")
        }
        let object: Any
        do {
            object = try JSONSerialization.jsonObject(with: Data(bytes), options: [])
        } catch {
            throw AssociationError(.malformedFile, "the file is not valid JSON")
        }
        guard let top = object as? [String: Any] else {
            throw AssociationError(.malformedFile, "the file's JSON is not an object")
        }
        guard let section = top["webcredentials"] else {
            throw AssociationError(.malformedFile, "the file has no \"webcredentials\" section (applinks alone does not allow shared credentials)")
        }
        guard let credentials = section as? [String: Any] else {
            throw AssociationError(.malformedFile, "\"webcredentials\" is not an object")
        }
        guard let list = credentials["apps"] as? [Any] else {
            throw AssociationError(.malformedFile, "\"webcredentials\" has no \"apps\" array")
        }
        var apps: [AppIdentifier] = [], invalid: [String] = []
        for entry in list {
            guard let text = entry as? String else {
                throw AssociationError(.malformedFile, "\"webcredentials.apps\" holds a value that is not a string")
            }
            if AppIdentifier.isAppForm(text), let app = try? AppIdentifier(text) {
                apps.append(app)
            } else {
                invalid.append(text)
            }
        }
        self.apps = apps
        invalidEntries = invalid
    }

    /// The deepest nesting of `[` and `{` outside strings, counted before
    /// the JSON parser runs so a hostile file cannot exhaust its stack.
    static func nestingDepth(_ bytes: [UInt8]) -> Int {
        var depth = 0, deepest = 0, inString = false, escaped = false
        for byte in bytes {
            if inString {
                if escaped { escaped = false } else if byte == UInt8(ascii: "\\") { escaped = true } else if byte == UInt8(ascii: "\"") { inString = false }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""): inString = true
            case UInt8(ascii: "["), UInt8(ascii: "{"):
                depth += 1
                deepest = max(deepest, depth)
            case UInt8(ascii: "]"), UInt8(ascii: "}"): depth -= 1
            default: break
            }
        }
        return deepest
    }
}
