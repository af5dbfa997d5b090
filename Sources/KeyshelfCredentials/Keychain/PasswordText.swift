import KeyshelfCrypto

/// The rule for a password's bytes: UTF-8 text without NUL.
///
/// Every stored password must survive `get --json` (a JSON string) and
/// `export` (a UTF-8 CSV that import reads back), so add and update refuse
/// anything else. Items saved before this rule may still hold such bytes;
/// readers cope with them (export skips them, `--json` refuses them).
public enum PasswordText {
    /// Whether `password` is valid UTF-8 and contains no NUL byte.
    public static func isValid(_ password: Secret) -> Bool {
        password.withUnsafeBytes { bytes in
            var iterator = bytes.makeIterator()
            var decoder = UTF8()
            while true {
                switch decoder.decode(&iterator) {
                case .scalarValue(let scalar): if scalar == "\0" { return false }
                case .emptyInput: return true
                case .error: return false
                }
            }
        }
    }

    /// Throws unless `password` is UTF-8 text without NUL; `item` names the
    /// password in the message ("the password for "alice" on example.com"),
    /// which never quotes the password itself.
    /// - Throws: `KeychainError` with `errSecParam`.
    public static func validate(_ password: Secret, for item: String) throws(KeychainError) {
        guard isValid(password) else {
            throw KeychainError.param("\(item) must be UTF-8 text without NUL bytes")
        }
    }
}
