import Foundation
import CZxcvbn
import KeyshelfCrypto

/// Password strength as estimated by zxcvbn (Debian's `libzxcvbn-dev`, the C
/// port by Tony Evans), in bits of entropy — not the 0–4 score of the
/// JavaScript original. The only user of `CZxcvbn`.
public enum PasswordStrength {
    /// Below this estimate, in bits, a password is `weak` (docs/audit.md). 50 bits
    /// sits above KeePassXC's "poor" band (< 40) and well below the lowest estimate
    /// seen for the default `xxx-xxx-xxx-xxx` passwords (62.6 bits over 20 000 draws),
    /// so a generated password is never flagged.
    public static let weakThresholdBits = 50.0

    /// zxcvbn's entropy estimate of `password`, in bits. `userInputs` (the
    /// account, the domain's labels, the item's label) count as dictionary words,
    /// so "alice2024" for the account "alice" scores low. The library is built
    /// for printable ASCII and details only the first 100 characters.
    /// The corresponding C function is `ZxcvbnMatch`.
    public static func entropyBits(of password: Secret, userInputs: [String]) -> Double {
        // zxcvbn wants a NUL-terminated string: a sodium-allocated copy with the NUL.
        let text = SecureBytes(byteCount: password.byteCount + 1)
        text.withUnsafeMutableBytes { out in
            password.withUnsafeBytes { out.copyMemory(from: $0) }
            out[password.byteCount] = 0
        }
        let words = userInputs.filter { !$0.isEmpty }.map { strdup($0) }
        defer { words.forEach { free($0) } }
        var dictionary: [UnsafePointer<CChar>?] = words.map { $0.map { UnsafePointer($0) } } + [nil]
        return text.withUnsafeBytes { bytes in
            dictionary.withUnsafeMutableBufferPointer { dict in
                ZxcvbnMatch(bytes.baseAddress!.assumingMemoryBound(to: CChar.self), dict.baseAddress, nil)
            }
        }
    }

    /// The user inputs of an account (docs/audit.md): the account, and its
    /// parts split at `@`, `.`, `-`, `_`; each label of the domain; the item's label.
    public static func userInputs(account: String, server: ServerName, label: String) -> [String] {
        let separators: Set<Character> = ["@", ".", "-", "_", " "]
        var inputs = [account] + account.split(whereSeparator: separators.contains).map(String.init)
        inputs += server.displayHost.split(separator: ".").map(String.init)
        if !label.isEmpty { inputs += [label] + label.split(whereSeparator: separators.contains).map(String.init) }
        var seen = Set<String>()
        return inputs.filter { !$0.isEmpty && seen.insert($0.lowercased()).inserted }
    }
}
