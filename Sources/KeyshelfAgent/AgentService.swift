import Foundation
import KeyshelfCredentials
import KeyshelfCrypto
import KeyshelfVault

/// The agent's open vault: one `VaultSession` (opened with the agent's
/// password keys on first use) and the `Keyshelf` facade over it, kept
/// between requests so a `get` costs a `stat` of each file instead of a
/// whole-vault decode. A file changed on disk by another process is re-read
/// before the next operation (`Keyshelf.refresh`); writes go through the
/// session's `flock`, changed-on-disk guard and atomic save, as everywhere.
final class AgentService {
    /// Seconds the agent waits for the vault's `flock` before handing the
    /// write back to the client (whose reply timeout is longer).
    static let lockTimeoutSeconds: TimeInterval = 3

    /// How one operation ended.
    enum Outcome {
        case done(ShelfResult)
        /// The user must answer this first; nothing was changed.
        case consentNeeded(ConsentRequest)
        /// A Keychain failure to report as is (not found, declined, …).
        case failed(KeychainError)
        /// The client should open the vault itself (reason for the record).
        case useVault(String)
        /// A vault error the client reports instead of opening the vault
        /// itself (`ShelfOperation.isRetriedOnlyBeforeSending`).
        case vaultFailed(VaultError)
        /// The keys no longer open the vault: the agent locks.
        case keysRejected
    }

    private let directory: VaultDirectory
    private var session: VaultSession?
    private var shelf: Keyshelf?

    init(vaultPath: String) {
        var directory = VaultDirectory(url: URL(fileURLWithPath: vaultPath))
        directory.lockTimeout = Self.lockTimeoutSeconds
        self.directory = directory
    }

    /// Runs `operation` with the client's consent `answers`, opening the
    /// vault with `keys` when it is not open yet.
    func perform(_ operation: ShelfOperation, answers: ConsentAnswers, keys: [VaultPasswordKey]) -> Outcome {
        let consent = RelayedConsent(answers)
        let presence = DeferredUserPresence()
        do {
            let shelf = try openShelf(keys)
            // The direct path says so on standard error; the agent has no
            // standard error, so the client takes that path.
            if session?.isSharedFileMissing == true { return .useVault("shared.vault is missing") }
            shelf.consent = consent
            shelf.userPresence = presence
            let result = try operation.perform(on: shelf)
            // A step that carries on past a declined request (the login
            // flow's lookup and save) asks the client first; a write saved
            // nothing meanwhile (`Consent.isWaitingForAnswer`).
            if let request = consent.pending { return .consentNeeded(request) }
            return .done(result)
        } catch let error as KeychainError {
            if let request = consent.pending { return .consentNeeded(request) }
            if presence.wasAsked { return .useVault("the item asks for the master password") }
            return .failed(error)
        } catch let error as VaultError where operation.isRetriedOnlyBeforeSending && error.code != .wrongPassword {
            // `passwd` may have replaced the files: the client must not change them again.
            // (Keys that stopped fitting, below, changed nothing: the client may.)
            close()
            return .vaultFailed(error)
        } catch let error as VaultError where error.code == .wrongPassword || error.code == .changedOnDisk {
            close()
            return error.code == .wrongPassword ? .keysRejected : .useVault(error.description)
        } catch {
            close()
            guard operation.isRetriedOnlyBeforeSending else { return .useVault(String(describing: error)) }
            return .vaultFailed(VaultError(.io, file: directory.url.path, reason: String(describing: error)))
        }
    }

    /// The work a write leaves for after the reply: rotating the backups
    /// (dropping the oldest frees a vault-sized file). A failure leaves them
    /// pending, and the next save rotates them (docs/vault-format.md).
    func afterReply() {
        try? session?.settleBackups()
    }

    /// Copies of the open session's password keys (`VaultSession.passwordKeys()`),
    /// for the agent to hand out after `passwd` changed them; nil when no
    /// session is open.
    func passwordKeys() -> [VaultPasswordKey]? {
        try? session?.passwordKeys()
    }

    /// Wipes the session's keys and forgets the items.
    func close() {
        session?.lock()
        session = nil
        shelf = nil
    }

    private func openShelf(_ keys: [VaultPasswordKey]) throws -> Keyshelf {
        if let shelf {
            try shelf.refresh()
            return shelf
        }
        // The session keeps its own copies; the agent's keys stay for `keys` requests.
        let copies = keys.map { VaultPasswordKey(salt: $0.salt, limits: $0.limits, key: $0.key.copy(range: 0..<$0.key.byteCount)) }
        let session = try directory.unlock(passwordKeys: copies)
        session.defersBackupRotation = true
        let shelf = try Keyshelf(vault: session)
        self.session = session
        self.shelf = shelf
        return shelf
    }
}

/// Answers consent requests with the client's relayed answers (its `--yes`
/// approves all); the first request it has no answer for is declined and
/// kept as `pending`, so the operation stops before any write and the client
/// asks the user (the agent never answers consent itself, issue 6).
final class RelayedConsent: Consent, @unchecked Sendable {
    private let answers: ConsentAnswers
    private let lock = NSLock()
    private var unanswered: ConsentRequest?

    init(_ answers: ConsentAnswers) {
        self.answers = answers
    }

    var answersWithoutWaiting: Bool { true }

    /// The first request no relayed answer covered.
    var pending: ConsentRequest? { lock.withLock { unanswered } }

    /// A request waits for the client's user: the write under way saves nothing.
    var isWaitingForAnswer: Bool { pending != nil }

    func ask(_ request: ConsentRequest) -> ConsentAnswer {
        if answers.approveAll { return .approved }
        if let given = answers.given.first(where: { $0.request == request }) { return given.answer }
        lock.withLock { if unanswered == nil { unanswered = request } }
        return .declined
    }
}

/// The agent has no terminal to re-ask the master password for a
/// `userPresence` item: it cancels and remembers, and the client then
/// opens the vault itself and asks in its own terminal.
final class DeferredUserPresence: UserPresencePrompt {
    private(set) var wasAsked = false

    func askMasterPassword(reason: String) -> Secret? {
        wasAsked = true
        return nil
    }
}
