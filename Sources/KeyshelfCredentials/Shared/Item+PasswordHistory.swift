import Foundation
import KeyshelfCrypto
import KeyshelfVault

extension Item {
    /// Sets the password to `new`, keeping the replaced one (when it differs)
    /// in `passwordHistory` (DESIGN §1: a change or a merge never destroys a
    /// password). The history is then `PasswordHistory.normalized` at `now`.
    public mutating func replacePassword(with new: Secret, at now: Date) {
        var entries = passwordHistory
        if let old = password, old != new { entries.append(PasswordHistoryEntry(password: old, replaced: now)) }
        password = new
        passwordHistory = PasswordHistory.normalized(entries, current: new, changed: now)
    }
}
