import Foundation
import KeyshelfCredentials
import KeyshelfVault

/// How the browser shows a Sign in with Apple account (DESIGN §13): a badge
/// in the account list and detail lines in place of the password.
enum AppleBadge {
    /// The account-list badge: " Apple" or " Apple·relay"; empty for a password account.
    static func text(_ record: ShelfEntry) -> String {
        guard record.signInWithApple != nil else { return "" }
        return AppleSignIn.isRelayAddress(record.account) ? " Apple·relay " : " Apple "
    }

    /// The detail lines (label, value, role) replacing the password line;
    /// values wrap at `width` columns.
    static func detail(_ apple: AppleSignIn, account: String, width: Int) -> [(String, String, Role)] {
        let sign = TerminalText.wrap("Sign in with Apple — \(Keyshelf.appleManagementHint)", width: max(1, width))
        var lines: [(String, String, Role)] = sign.enumerated().map { ($0.offset == 0 ? "Sign-in" : "", $0.element, .accent) }
        let relay = AppleSignIn.isRelayAddress(account)
        let email = switch (apple.hidesEmail, relay) {
        case (true, true): "hidden: a Hide My Email relay address"
        case (true, false): "hidden (Hide My Email)"
        case (false, _): "shared with the site"
        }
        lines.append(("E-mail", email, .normal))
        if !apple.forwardingAddress.isEmpty { lines.append(("Forwards", "to \(apple.forwardingAddress)", .normal)) }
        lines.append(("Since", DateText.format(apple.since), .normal))
        return lines
    }
}
