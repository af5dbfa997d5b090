import KeyshelfCrypto

/// A masked password input whose bytes live in `SecureBytes`, never in a `String`.
///
/// Holds up to `capacity` bytes of UTF-8; Backspace removes the last whole
/// character; Ctrl-U wipes it all. Shown as one `•` per character.
public final class SecretField {
    /// Maximum length in bytes.
    public let capacity: Int
    fileprivate let buffer: SecureBytes
    fileprivate var byteCount = 0
    fileprivate var characterCount = 0

    public init(capacity: Int = 1024) {
        self.capacity = capacity
        buffer = SecureBytes(byteCount: capacity)
    }

    public var isEmpty: Bool { byteCount == 0 }
    /// Number of characters typed (what the mask shows).
    public var count: Int { characterCount }

    /// Applies an editing key; returns false for keys the field does not use.
    public func handle(_ key: Key) -> Bool {
        switch key {
        case .character(let c):
            guard !Key.isControl(c) else { return true }
            let bytes = Array(String(c).utf8)
            guard byteCount + bytes.count <= capacity else { return true }
            buffer.withUnsafeMutableBytes { raw in
                for (i, b) in bytes.enumerated() { raw[byteCount + i] = b }
            }
            byteCount += bytes.count
            characterCount += 1
        case .backspace:
            removeLastCharacter()
        case .control("u"):
            clear()
        default:
            return false
        }
        return true
    }

    private func removeLastCharacter() {
        guard byteCount > 0 else { return }
        buffer.withUnsafeMutableBytes { raw in
            // Step back over UTF-8 continuation bytes (10xxxxxx) to the lead byte.
            repeat {
                byteCount -= 1
                let b = raw[byteCount]
                raw[byteCount] = 0
                if b & 0xC0 != 0x80 { break }
            } while byteCount > 0
        }
        characterCount -= 1
    }

    /// Wipes what was typed.
    public func clear() {
        buffer.wipe()
        byteCount = 0
        characterCount = 0
    }

    /// A copy of what was typed, as a `Secret` in its own secure buffer.
    public func secret() -> Secret {
        Secret(storage: buffer, range: 0..<byteCount).detached()
    }

    /// Draws the mask in `width` columns and returns the cursor column; a mask
    /// longer than the field shows its end, after a `…`.
    @discardableResult
    public func draw(on screen: Screen, row: Int, column: Int, width: Int, role: Role = .input) -> Int {
        screen.fill(row: row, column: column, width: width, role: role)
        let mask = TerminalText.truncate(String(repeating: "•", count: characterCount), toColumns: max(0, width - 1), keeping: .end)
        screen.put(mask, row: row, column: column, role: role, width: width)
        return column + TerminalText.columns(mask)
    }
}

extension SecretField {
    /// Replaces the content with a copy of `secret` (e.g. a generated password).
    public func set(_ secret: Secret) {
        clear()
        secret.withUnsafeBytes { bytes in
            let n = min(bytes.count, capacity)
            buffer.withUnsafeMutableBytes { raw in
                for i in 0..<n { raw[i] = bytes[i] }
            }
            byteCount = n
            characterCount = bytes.prefix(n).filter { $0 & 0xC0 != 0x80 }.count
        }
    }
}
