/// A set of ASCII printable characters (U+0020 space to U+007E `~`), the
/// characters a `passwordrules` class can name (WHATWG proposal
/// whatwg/html#3518, "Character classes").
///
/// `unicode` allows any character; keyshelf generates ASCII only, so for
/// drawing it stands for `asciiPrintable` (docs/credentials.md).
public struct PasswordCharacters: Hashable, Sendable {
    /// Bit `b - 0x20` set for each byte `b` in the set (95 bits used).
    private var low: UInt64 = 0
    private var high: UInt64 = 0

    /// The empty set.
    public init() {}

    /// The characters of `bytes`; each must be ASCII printable (a precondition).
    public init<S: Sequence>(_ bytes: S) where S.Element == UInt8 {
        for byte in bytes { insert(byte) }
    }

    /// `upper`: A–Z.
    public static let upper = PasswordCharacters(UInt8(ascii: "A")...UInt8(ascii: "Z"))
    /// `lower`: a–z.
    public static let lower = PasswordCharacters(UInt8(ascii: "a")...UInt8(ascii: "z"))
    /// `digit`: 0–9.
    public static let digit = PasswordCharacters(UInt8(ascii: "0")...UInt8(ascii: "9"))
    /// `special`: the 33 ASCII printable characters that are not letters or digits, space included.
    public static let special = PasswordCharacters(
        Array(0x20...0x2F) + Array(0x3A...0x40) + Array(0x5B...0x60) + Array(0x7B...0x7E))
    /// `ascii-printable`: all 95 characters from space to `~`.
    public static let asciiPrintable = PasswordCharacters(0x20...0x7E)

    /// Whether `byte` is ASCII printable (a member a set may hold).
    public static func isPrintable(_ byte: UInt8) -> Bool { (0x20...0x7E).contains(byte) }

    /// Adds `byte` (ASCII printable: a precondition).
    public mutating func insert(_ byte: UInt8) {
        precondition(Self.isPrintable(byte), "not an ASCII printable character")
        let bit = Int(byte - 0x20)
        if bit < 64 { low |= 1 << bit } else { high |= 1 << (bit - 64) }
    }

    /// Whether `byte` is in the set.
    public func contains(_ byte: UInt8) -> Bool {
        guard Self.isPrintable(byte) else { return false }
        let bit = Int(byte - 0x20)
        return bit < 64 ? low & (1 << bit) != 0 : high & (1 << (bit - 64)) != 0
    }

    /// The union of both sets.
    public func union(_ other: PasswordCharacters) -> PasswordCharacters {
        var out = self
        out.low |= other.low
        out.high |= other.high
        return out
    }

    /// Whether the sets share no character.
    public func isDisjoint(with other: PasswordCharacters) -> Bool {
        low & other.low == 0 && high & other.high == 0
    }

    /// How many characters the set holds.
    public var count: Int { low.nonzeroBitCount + high.nonzeroBitCount }

    /// Whether the set holds no character.
    public var isEmpty: Bool { low == 0 && high == 0 }

    /// The members in ascending byte order.
    public var bytes: [UInt8] { (UInt8(0x20)...UInt8(0x7E)).filter(contains) }
}
