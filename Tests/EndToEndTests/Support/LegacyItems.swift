import Foundation
import KeyshelfCrypto
import KeyshelfVault

extension TestVault {
    /// Saves `item` straight into the vault, past the rules add applies, the
    /// way an older keyshelf could have saved it (e.g. a password with NUL).
    func saveLegacy(_ item: Item, local: Bool = false) throws {
        let session = try VaultDirectory(url: directory).unlock(password: Secret(utf8: Self.masterPassword))
        defer { session.lock() }
        try session.modify { contents in
            if local { contents.local.append(item) } else { contents.shared.append(item) }
        }
    }
}
