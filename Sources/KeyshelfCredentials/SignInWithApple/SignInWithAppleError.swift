/// Why a Sign in with Apple key, client secret or identity token was refused
/// (docs/sign-in-with-apple.md). `check` names the failing check for
/// `siwa verify` ("signature", "iss", "aud", "exp", …).
public struct SignInWithAppleError: Error, Equatable, CustomStringConvertible {
    /// The check or step that failed, e.g. "exp" or "key".
    public var check: String
    /// A sentence the user can act on.
    public var reason: String

    public init(_ check: String, _ reason: String) {
        self.check = check
        self.reason = reason
    }

    public var description: String { "\(check): \(reason)" }

    /// Compares the check only, so tests can name the failure without the wording.
    public static func == (a: SignInWithAppleError, b: SignInWithAppleError) -> Bool { a.check == b.check }
}
