import Foundation
import KeyshelfCredentials
import KeyshelfCrypto
import KeyshelfVault

/// The unlock screen: a masked master-password field; on first run it offers
/// to create the vault with a confirmed password and shows the Argon2id cost.
/// A short new master password (`MasterPasswordPolicy`) is warned about and
/// needs a second Enter; so do Argon2id limits above `local.vault`'s.
final class UnlockScreen {
    private let screen: Screen
    private let directory: VaultDirectory
    private let creationLimits: PasswordHashLimits
    private let password = SecretField()
    private let confirmation = SecretField()
    private var confirming = false
    private var message = ""
    private var messageIsError = false
    private var working = false
    /// The user saw the short-password warning and may press Enter again to create anyway.
    private var shortPasswordAccepted = false
    /// The Argon2id limits question the user saw; a second Enter approves it (`UnlockLimitsConsent`).
    private var limitsQuestion: KeyDerivationRequest?

    init(screen: Screen, directory: VaultDirectory, creationLimits: PasswordHashLimits = .moderate) {
        self.screen = screen
        self.directory = directory
        self.creationLimits = creationLimits
    }

    /// Runs until the vault is unlocked (or created); nil when the user quits.
    func run() -> VaultSession? {
        defer {
            password.clear()
            confirmation.clear()
        }
        while true {
            draw()
            guard let key = screen.readKey(timeout: 60) else { continue }
            switch key {
            case .closed, .control("c"), .escape:
                return nil
            case .resize:
                continue
            case .tab, .down, .up, .backTab:
                if !directory.exists { confirming.toggle() }
            case .enter:
                if let session = submit() { return session }
            default:
                if (confirming ? confirmation : password).handle(key) {
                    message = ""
                    shortPasswordAccepted = false
                    limitsQuestion = nil
                }
            }
        }
    }

    private func submit() -> VaultSession? {
        if password.isEmpty {
            return fail("Type the master password first.")
        }
        let creating = !directory.exists
        if creating, !confirming {
            confirming = true
            return nil
        }
        if creating, password.secret() != confirmation.secret() {
            confirmation.clear()
            return fail("The two passwords differ; type the confirmation again.")
        }
        if creating, !shortPasswordAccepted, MasterPasswordPolicy.isShort(password.secret()) {
            shortPasswordAccepted = true
            return fail("\(MasterPasswordPolicy.shortWarning) (fewer than \(MasterPasswordPolicy.recommendedMinimumCharacters) "
                + "characters) Enter again creates the vault anyway; or type a longer one.")
        }
        working = true
        message = creating ? "Creating the vault (Argon2id)…" : "Unlocking (Argon2id)…"
        messageIsError = false
        draw()
        defer { working = false }
        let consent = UnlockLimitsConsent(approving: limitsQuestion)
        do {
            let secret = password.secret()
            return creating
                ? try directory.create(password: secret, limits: creationLimits, keyDerivationConsent: consent)
                : try directory.unlock(password: secret, keyDerivationConsent: consent)
        } catch let error as VaultError where error.code == .kdfLimitsNotApproved && consent.lastRequest != limitsQuestion {
            limitsQuestion = consent.lastRequest
            guard let request = consent.lastRequest else { return fail(error.description) }
            // Two lines of the box: the file, the limits, the doubt, the way on.
            let name = (request.file as NSString).lastPathComponent
            return fail("\(name) asks for more Argon2id (\(request.requested)) than this machine; maybe tampered. Enter again: run it")
        } catch let error as VaultError {
            password.clear()
            confirmation.clear()
            confirming = false
            // The box says why in the user's terms; which file the typed password missed does not help here.
            return fail(error.code == .wrongPassword ? "\(KeychainError.wrongMasterPassword)." : error.description)
        } catch {
            return fail("\(error)")
        }
    }

    private func fail(_ text: String) -> VaultSession? {
        message = text
        messageIsError = true
        return nil
    }

    private func draw() {
        screen.clear()
        let size = screen.size
        if size.rows < minimumSize.rows || size.columns < minimumSize.columns {
            TooSmallNotice.draw(on: screen, minimum: minimumSize, hint: "Enlarge the window, or press Esc to quit.")
            screen.refresh()
            return
        }
        let creating = !directory.exists
        let width = min(size.columns - 4, 64)
        let path = directory.url.path
        // A long path wraps onto two lines, a message onto three (the short-password
        // warning needs them at 60 columns); longer ones end in `…`.
        let pathLines = TerminalText.wrap(creating ? "No vault in \(path) yet." : "Vault: \(path)", width: width - 4, maxLines: 2)
        let messageLines = TerminalText.wrap(message, width: width - 4, maxLines: 3)
        let height = (creating ? 11 : 8) + pathLines.count - 1 + max(1, messageLines.count)
        let top = max(0, (size.rows - height) / 2)
        let left = (size.columns - width) / 2
        Box.fill(on: screen, row: top, column: left, height: height, width: width, role: .dialog)
        Box.draw(on: screen, row: top, column: left, height: height, width: width,
                 title: creating ? "Create a keyshelf vault" : "Unlock keyshelf", role: .dialog)
        var row = top + 2
        for line in pathLines {
            screen.put(line, row: row, column: left + 2, role: .dialog, width: width - 4)
            row += 1
        }
        if creating {
            screen.put("Key derivation: Argon2id, \(creationLimits.opslimit) passes, \(creationLimits.memlimitBytes >> 20) MiB",
                       row: row, column: left + 2, role: .dim, width: width - 4)
            row += 1
        }
        row += 1
        let fieldLeft = left + 2 + 18
        let fieldWidth = width - 4 - 18
        screen.put("Master password", row: row, column: left + 2, role: confirming ? .dialog : .accent)
        let c1 = password.draw(on: screen, row: row, column: fieldLeft, width: fieldWidth)
        var cursor = (row, c1)
        if creating {
            row += 2
            screen.put("Confirm", row: row, column: left + 2, role: confirming ? .accent : .dialog)
            let c2 = confirmation.draw(on: screen, row: row, column: fieldLeft, width: fieldWidth)
            if confirming { cursor = (row, c2) }
        }
        row += 2
        for line in messageLines where !message.isEmpty {
            screen.put(line, row: row, column: left + 2, role: messageIsError ? .error : .dim, width: width - 4)
            row += 1
        }
        screen.put(creating ? "Enter next/create · Tab switch · Esc quit" : "Enter unlock · Esc quit",
                   row: top + height - 2, column: left + 2, role: .dim, width: width - 4)
        screen.setCursor(row: cursor.0, column: cursor.1, visible: !working)
        screen.refresh()
    }
}
