import KeyshelfCrypto

/// A computed one-time code, with how long it stays valid (TOTP).
public struct OneTimeCode: Sendable, Equatable {
    /// The code: digits, or 5 Steam characters.
    public let code: String
    /// TOTP: seconds until the next code (1…period); nil for HOTP.
    public let remaining: Int?
    /// TOTP: the time step in seconds; nil for HOTP.
    public let period: Int?

    public init(code: String, remaining: Int?, period: Int?) {
        self.code = code
        self.remaining = remaining
        self.period = period
    }
}

extension OTPAuth {
    /// The TOTP code at `time` (RFC 6238: counter = ⌊time / period⌋, start 0).
    /// For an HOTP secret, the code of `counter` (the caller then saves
    /// `counter + 1`; `Keyshelf.oneTimeCode`).
    /// - Parameter time: Unix time in seconds, not negative.
    public func code(at time: Int64) -> OneTimeCode {
        precondition(time >= 0, "a one-time code for a time before 1970")
        switch kind {
        case .hotp:
            return OneTimeCode(code: code(counter: counter), remaining: nil, period: nil)
        case .totp:
            let step = Int64(period)
            return OneTimeCode(code: code(counter: UInt64(time / step)), remaining: Int(step - time % step), period: period)
        }
    }

    /// The code for `counter`: liboath for 6–8 digits; for Steam and 9–10
    /// digits the RFC 4226 truncation value, as decimal digits (value mod
    /// 10^digits, zero-padded) or as 5 Steam characters (value mod 26, then
    /// value / 26, five times).
    public func code(counter: UInt64) -> String {
        if !isSteam, OneTimePassword.libraryDigits.contains(digits) {
            do {
                return try OneTimePassword.code(key: key, counter: counter, digits: digits, hash: hash)
            } catch {
                preconditionFailure("liboath refused checked parameters: \(error)")
            }
        }
        var value = OneTimePassword.truncatedValue(key: key, counter: counter, hash: hash)
        if isSteam {
            var letters: [Character] = []
            for _ in 0..<5 {
                letters.append(Self.steamAlphabet[Int(value % 26)])
                value /= 26
            }
            return String(letters)
        }
        var modulus: UInt64 = 1
        for _ in 0..<digits { modulus *= 10 }
        let text = String(UInt64(value) % modulus)
        return String(repeating: "0", count: max(0, digits - text.count)) + text
    }
}
