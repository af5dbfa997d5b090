/// Password requirements in the WHATWG `passwordrules` language (the
/// proposal whatwg/html#3518, which Apple's automatic strong passwords honour):
/// `required: <classes>; allowed: <classes>; max-consecutive: N; minlength: N; maxlength: N`.
///
/// Classes: `upper`, `lower`, `digit`, `special`, `ascii-printable`, `unicode`
/// (case-insensitive) and custom sets `[…]` of ASCII printable characters, in
/// which `-` may only come first and `]` only last (`[-]]` is dash and bracket).
/// A comma-separated list inside one property is one set (`required: digit, upper`
/// needs a digit *or* an upper-case letter); each `required` property needs one
/// character of its set. Characters of `required` sets are also allowed; with
/// neither property every ASCII printable character is allowed. Repeated
/// properties combine as Apple's parser does: the largest `minlength`, the
/// smallest `maxlength` and `max-consecutive`.
///
/// Unlike Apple's lenient parser, which skips what it does not understand,
/// malformed text is refused with the position of the mistake: a rule saved
/// for a site should mean what its author thinks it means.
public struct PasswordRules: Sendable, Equatable {
    /// One set per `required` property, identical sets merged, in order of appearance.
    public var required: [PasswordCharacters]
    /// The characters a password may hold: `allowed` ∪ every `required` set
    /// (`asciiPrintable` when the text names neither).
    public var allowed: PasswordCharacters
    /// `minlength` in characters; nil when not given.
    public var minLength: Int?
    /// `maxlength` in characters; nil when not given.
    public var maxLength: Int?
    /// `max-consecutive`: the longest run of one repeated character; nil when not given.
    public var maxConsecutive: Int?
    /// The text as given, without surrounding white space (what `rules get` shows).
    public var text: String

    /// The largest integer a property takes (6 digits); larger values are refused.
    public static let maximumValue = 999_999
    /// How many different `required` sets a text may have (the acceptance
    /// computation visits every subset of them).
    public static let maximumRequiredSets = 12

    /// Parses `text`.
    /// - Throws: `PasswordRulesError.syntax` naming the position (1-based, in
    ///   characters) and what was expected there.
    public init(parsing text: String) throws(PasswordRulesError) {
        var parser = Parser(Array(text.unicodeScalars))
        var required: [PasswordCharacters] = []
        var allowed: PasswordCharacters?
        var minLength: Int?, maxLength: Int?, maxConsecutive: Int?
        for property in try parser.properties() {
            switch property {
            case .required(let set):
                if !required.contains(set) { required.append(set) }
            case .allowed(let set):
                allowed = (allowed ?? PasswordCharacters()).union(set)
            case .minLength(let n): minLength = max(minLength ?? n, n)
            case .maxLength(let n): maxLength = min(maxLength ?? n, n)
            case .maxConsecutive(let n): maxConsecutive = min(maxConsecutive ?? n, n)
            }
        }
        guard required.count <= Self.maximumRequiredSets else {
            throw PasswordRulesError(.syntax, "passwordrules: at most \(Self.maximumRequiredSets) different required sets are supported, found \(required.count)")
        }
        var union = allowed ?? PasswordCharacters()
        for set in required { union = union.union(set) }
        self.required = required
        self.allowed = allowed == nil && required.isEmpty ? .asciiPrintable : union
        self.minLength = minLength
        self.maxLength = maxLength
        self.maxConsecutive = maxConsecutive
        self.text = text.trimmingWhitespace()
    }

    /// One parsed property.
    enum Property {
        case required(PasswordCharacters)
        case allowed(PasswordCharacters)
        case minLength(Int)
        case maxLength(Int)
        case maxConsecutive(Int)
    }

    /// A recursive-descent reader over the text's Unicode scalars.
    struct Parser {
        let input: [Unicode.Scalar]
        var position = 0

        init(_ input: [Unicode.Scalar]) { self.input = input }

        static let classNames: [String: PasswordCharacters] = [
            "upper": .upper, "lower": .lower, "digit": .digit, "special": .special,
            "ascii-printable": .asciiPrintable, "unicode": .asciiPrintable,
        ]

        /// `property (';' property)* ';'?`, white space anywhere between tokens; "" has none.
        mutating func properties() throws(PasswordRulesError) -> [Property] {
            var out: [Property] = []
            skipWhitespace()
            while position < input.count {
                out.append(try property())
                skipWhitespace()
                guard position < input.count else { break }
                guard input[position] == ";" else { throw error("expected ';' between properties") }
                position += 1
                skipWhitespace()
            }
            return out
        }

        private mutating func property() throws(PasswordRulesError) -> Property {
            let start = position
            let name = identifier().lowercased()
            guard !name.isEmpty else { throw error("expected a property name (required, allowed, max-consecutive, minlength, maxlength)") }
            skipWhitespace()
            guard position < input.count, input[position] == ":" else {
                throw error("expected ':' after '\(name)'")
            }
            position += 1
            skipWhitespace()
            switch name {
            case "required": return .required(try classes(for: name))
            case "allowed": return .allowed(try classes(for: name))
            case "minlength": return .minLength(try integer(for: name))
            case "maxlength": return .maxLength(try integer(for: name))
            case "max-consecutive": return .maxConsecutive(try integer(for: name))
            default:
                position = start
                throw error("unknown property '\(name)' (known: required, allowed, max-consecutive, minlength, maxlength)")
            }
        }

        /// `class (',' class)*`, united into one set.
        private mutating func classes(for name: String) throws(PasswordRulesError) -> PasswordCharacters {
            var set = PasswordCharacters()
            while true {
                guard position < input.count, input[position] != ";" else {
                    throw error("expected a character class after '\(name):' (upper, lower, digit, special, ascii-printable, unicode or [custom])")
                }
                if input[position] == "[" {
                    set = set.union(try customClass())
                } else {
                    let start = position
                    let word = identifier()
                    guard let named = Self.classNames[word.lowercased()] else {
                        position = start
                        throw error(word.isEmpty ? "expected a character class (upper, lower, digit, special, ascii-printable, unicode or [custom])"
                                    : "unknown character class '\(word)' (known: upper, lower, digit, special, ascii-printable, unicode, or [custom])")
                    }
                    set = set.union(named)
                }
                skipWhitespace()
                guard position < input.count, input[position] == "," else { return set }
                position += 1
                skipWhitespace()
            }
        }

        /// `[chars]`: ASCII printable characters; `-` only first, `]` only last.
        private mutating func customClass() throws(PasswordRulesError) -> PasswordCharacters {
            let open = position
            position += 1
            var set = PasswordCharacters()
            while true {
                guard position < input.count else {
                    position = open
                    throw error("the custom class opened here has no closing ']'")
                }
                let c = input[position]
                if c == "]" {
                    // `]]`: the first is a literal `]`, allowed only as the last character.
                    if position + 1 < input.count, input[position + 1] == "]" {
                        set.insert(UInt8(ascii: "]"))
                        position += 2
                    } else {
                        position += 1
                    }
                    break
                }
                guard c.isASCII, PasswordCharacters.isPrintable(UInt8(c.value)) else {
                    throw error("a custom class holds ASCII printable characters only (space to '~'), not U+\(String(c.value, radix: 16, uppercase: true))")
                }
                if c == "-" && position != open + 1 {
                    throw error("'-' must come first in a custom class, right after '['")
                }
                set.insert(UInt8(c.value))
                position += 1
            }
            guard !set.isEmpty else {
                position = open
                throw error("the custom class is empty")
            }
            return set
        }

        private mutating func integer(for name: String) throws(PasswordRulesError) -> Int {
            let start = position
            while position < input.count, ("0"..."9").contains(input[position]) { position += 1 }
            guard position > start else { throw error("expected a whole number after '\(name):'") }
            guard position - start <= 6 else {
                position = start
                throw error("'\(name)' is too large (at most \(PasswordRules.maximumValue))")
            }
            return Int(String(String.UnicodeScalarView(input[start..<position])))!
        }

        /// Letters and `-` (a property name or class identifier); "" when none.
        private mutating func identifier() -> String {
            let start = position
            while position < input.count, input[position] == "-" || input[position].properties.isAlphabetic && input[position].isASCII {
                position += 1
            }
            return String(String.UnicodeScalarView(input[start..<position]))
        }

        private mutating func skipWhitespace() {
            while position < input.count, [" ", "\t", "\n", "\r", "\u{0C}"].contains(input[position]) { position += 1 }
        }

        private func error(_ what: String) -> PasswordRulesError {
            PasswordRulesError(.syntax, "passwordrules: at character \(position + 1): \(what)")
        }
    }
}
