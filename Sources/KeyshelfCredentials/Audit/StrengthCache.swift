import Dispatch
import Foundation
import KeyshelfCrypto
import KeyshelfVault
import Synchronization

/// zxcvbn estimates kept across audits, for a long-lived caller (the TUI audits
/// on every reload): an audit after an edit estimates only the changed account,
/// and a whole shelf's estimates (~9 s at 100 000 accounts) can be made on a
/// background thread while the caller goes on (docs/audit.md, "Strength cache").
///
/// An estimate depends only on the password and the account, server and label
/// (the user inputs), so it is keyed by the item's id, modification date,
/// those fields and the password's length; a saved password change moves the
/// modification date. Only
/// the bits are kept, never the password. Thread-safe.
public final class StrengthCache: Sendable {
    private struct Key: Hashable {
        var id: UUID
        var modified: Date
        var account: String
        var server: ServerName
        var label: String
        /// The password's length in bytes: a change within one modification stamp most likely changes it too.
        var length: Int

        init(_ subject: AuditSubject) {
            let entry = subject.entry
            length = subject.password?.byteCount ?? 0
            id = entry.id
            modified = entry.modificationDate
            account = entry.account
            server = entry.server
            label = entry.label
        }
    }

    private struct State {
        var bits: [Key: Double] = [:]
        /// Moves when a background batch ends, so the caller knows to audit again.
        var generation = 0
        var batchRunning = false
        /// Moves on `clear`; a batch started under another epoch stops and keeps nothing.
        var epoch = 0
    }

    private let state = Mutex(State())
    /// One zxcvbn estimate at a time: the C port does not say it is thread-safe.
    private static let estimator = Mutex(())

    public init() {}

    /// How many background batches have ended; an audit made before the
    /// latest one may lack estimates that are now cached.
    public var generation: Int { state.withLock { $0.generation } }

    /// Whether a background batch is running.
    public var isEstimating: Bool { state.withLock { $0.batchRunning } }
    /// Whether nothing is estimated yet (a first audit, or after `clear`).
    public var isEmpty: Bool { state.withLock { $0.bits.isEmpty } }

    /// The cached estimate of `subject`'s password, in bits; nil when not cached or no password.
    func cached(_ subject: AuditSubject) -> Double? {
        let key = Key(subject)
        return state.withLock { $0.bits[key] }
    }

    /// The estimate of `subject`'s password, in bits, from the cache or made
    /// now (and cached); nil for an account without a password.
    func estimate(_ subject: AuditSubject) -> Double? {
        guard let password = subject.password else { return nil }
        if let known = cached(subject) { return known }
        let bits = Self.entropyBits(of: password, for: subject.entry)
        let key = Key(subject)
        state.withLock { $0.bits[key] = bits }
        return bits
    }

    /// The subjects with a password whose estimate is not cached.
    public func missing(_ subjects: [AuditSubject]) -> [AuditSubject] {
        state.withLock { state in
            subjects.filter { $0.password != nil && $0.entry.signInWithApple == nil && state.bits[Key($0)] == nil }
        }
    }

    /// Estimates `subjects` on a background thread, unless a batch is already
    /// running (the caller asks again after `generation` moves). The batch
    /// holds the passwords until it ends or `clear` is called.
    public func estimateInBackground(_ subjects: [AuditSubject]) {
        estimateInBackground(building: { subjects })
    }

    /// `estimateInBackground(_:)` of the subjects `subjects` makes, called on
    /// the background thread (`Keyshelf.deferredAuditSubjects`), so the caller
    /// does not pay for them either.
    public func estimateInBackground(building subjects: @escaping @Sendable () -> [AuditSubject]) {
        let epoch: Int? = state.withLock { state in
            guard !state.batchRunning else { return nil }
            state.batchRunning = true
            return state.epoch
        }
        guard let epoch else { return }
        DispatchQueue.global(qos: .utility).async { [self] in
            for subject in subjects() {
                guard state.withLock({ $0.epoch == epoch }) else { break }
                _ = estimate(subject)
            }
            state.withLock { state in
                guard state.epoch == epoch else { return }
                state.batchRunning = false
                state.generation += 1
            }
        }
    }

    /// Forgets every estimate and stops a running batch (the vault locked).
    public func clear() {
        state.withLock { state in
            state.bits = [:]
            state.epoch += 1
            state.batchRunning = false
        }
    }

    /// Drops the estimates of items no longer in `subjects` (edited or deleted
    /// ones), once they outnumber the live ones: an audit stays linear without
    /// paying for a set of every key on each run.
    func prune(keeping subjects: [AuditSubject]) {
        guard state.withLock({ $0.bits.count }) > 2 * subjects.count + 64 else { return }
        let live = Set(subjects.map { Key($0) })
        state.withLock { state in state.bits = state.bits.filter { live.contains($0.key) } }
    }

    /// zxcvbn's estimate of `password` with `entry`'s user inputs, in bits, one call at a time.
    static func entropyBits(of password: Secret, for entry: CredentialEntry) -> Double {
        let inputs = PasswordStrength.userInputs(account: entry.account, server: entry.server, label: entry.label)
        return estimator.withLock { _ in PasswordStrength.entropyBits(of: password, userInputs: inputs) }
    }
}
