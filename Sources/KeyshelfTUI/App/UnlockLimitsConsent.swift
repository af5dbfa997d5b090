import KeyshelfVault
import Synchronization

/// The unlock screen's answer to a vault's `KeyDerivationRequest` (Argon2id
/// limits above `local.vault`'s, docs/vault-format.md): the first unlock
/// refuses and remembers the request, the screen shows its message, and a
/// second Enter unlocks again approving exactly that request.
final class UnlockLimitsConsent: KeyDerivationConsent {
    private let approved: KeyDerivationRequest?
    private let asked = Mutex<KeyDerivationRequest?>(nil)

    /// - Parameter approved: the request the user confirmed with a second Enter, if any.
    init(approving approved: KeyDerivationRequest?) {
        self.approved = approved
    }

    func ask(_ request: KeyDerivationRequest) -> Bool {
        asked.withLock { $0 = request }
        return request == approved
    }

    /// The last request asked (nil when none was).
    var lastRequest: KeyDerivationRequest? { asked.withLock { $0 } }
}
