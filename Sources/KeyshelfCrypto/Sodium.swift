import CSodium

/// One-time libsodium initialisation. Every entry point of this module calls
/// `Sodium.ensureInitialized()` first, so callers never need to.
enum Sodium {
    /// `sodium_init` runs once: Swift initialises globals lazily and atomically.
    private static let status: Int32 = sodium_init()

    static func ensureInitialized() {
        precondition(status >= 0, "sodium_init failed: libsodium cannot be used")
    }
}

/// A failure inside the crypto wrapper. Authentication failures are not
/// distinguished from corruption on purpose: libsodium reports only "forged".
public enum CryptoError: Error, Equatable, Sendable {
    /// The ciphertext did not authenticate (wrong key, tampered or damaged bytes).
    case authenticationFailed
    /// Argon2id could not run with the requested limits (usually memory).
    case keyDerivationFailed(opslimit: UInt64, memlimitBytes: UInt64)
    /// A secretstream ended without a FINAL chunk, or had data after it.
    case truncatedStream
    /// An input had the wrong size, e.g. a key that is not 32 bytes.
    case invalidLength(what: String, expectedByteCount: Int, actualByteCount: Int)
}
