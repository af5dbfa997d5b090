import KeyshelfCrypto

/// The Argon2id cost named by `init --kdf` (DESIGN §6; default moderate).
enum KDFLevel: String, Sendable {
    case interactive, moderate, sensitive
    /// Argon2id's smallest limits, for tests only (`$KEYSHELF_TEST_KDF=minimum`).
    case minimum

    var limits: PasswordHashLimits {
        switch self {
        case .interactive: .interactive
        case .moderate: .moderate
        case .sensitive: .sensitive
        case .minimum: .minimum
        }
    }

    /// The level to use: the explicit one, else `$KEYSHELF_TEST_KDF`, else moderate.
    static func resolve(_ explicit: KDFLevel?, environment: [String: String]) -> KDFLevel {
        explicit ?? environment["KEYSHELF_TEST_KDF"].flatMap(KDFLevel.init(rawValue:)) ?? .moderate
    }
}
