import KeyshelfVault

/// How an account signs in (DESIGN §1 "sign-in method", §13): with a
/// password, or with Sign in with Apple (no password kept; `Item.signInWithApple`).
/// The raw value is what `--json` prints as `signInWith`.
public enum SignInMethod: String, Sendable, Equatable {
    case password
    case apple

    /// The method of `item`.
    init(of item: Item) {
        self = item.signInWithApple == nil ? .password : .apple
    }
}
