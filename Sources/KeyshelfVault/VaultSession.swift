import Foundation
import KeyshelfCrypto

/// An unlocked vault: the unwrapped keys of both files and their last-read items.
///
/// Reads (`contents`) re-read a file only when it changed on disk; writes
/// (`modify`, `changePassword`) hold the directory's `flock`, so two
/// processes never lose each other's changes. Thread-safe. After `lock()`
/// the keys are wiped and every call throws `VaultError.locked`.
public final class VaultSession: @unchecked Sendable {
    /// The directory this session reads and writes.
    public let directory: VaultDirectory

    struct State {
        var local: FileState
        var shared: FileState

        subscript(store: Store) -> FileState {
            get { store == .local ? local : shared }
            set { if store == .local { local = newValue } else { shared = newValue } }
        }

        /// Runs `body` on `store`'s state in place: through the subscript, a
        /// second reference to its item array would make an append copy it.
        mutating func withFile<T>(_ store: Store, _ body: (inout FileState) throws -> T) rethrows -> T {
            switch store {
            case .local: try body(&local)
            case .shared: try body(&shared)
            }
        }
    }

    let mutex = NSLock()
    var state: State?
    var itemsRevision = 0

    /// When true, a save leaves the version it replaced as
    /// `backups/NAME.pending.bak` instead of rotating the backups at once;
    /// `settleBackups()` (or the next save, or a crash's recovery) rotates it
    /// in. For the agent, which answers its client first: dropping the oldest
    /// backup frees a whole vault-sized file. Default false.
    public var defersBackupRotation: Bool {
        get { mutex.withLock { deferRotation } }
        set { mutex.withLock { deferRotation = newValue } }
    }
    var deferRotation = false

    /// The wall clock of the change stamps a save issues (`ChangeStamper`).
    /// Default `Date()`; tests set a skewed clock.
    public var clock: @Sendable () -> Date {
        get { mutex.withLock { clockSource } }
        set { mutex.withLock { clockSource = newValue } }
    }
    var clockSource: @Sendable () -> Date = { Date() }

    /// Rotates the backups a save left pending (`defersBackupRotation`),
    /// holding the directory's lock. Does not wait for the lock: whoever
    /// holds it is saving, and every save settles pending backups first.
    /// - Throws: `VaultError.io` (lock busy, a system call); the backups
    ///   then stay pending and the next save rotates them.
    public func settleBackups() throws {
        try LockFile.withExclusiveLock(directory: directory.path, timeout: 0) {
            for store in Store.allCases {
                let path = directory.path(of: store)
                try Backups(directory: directory.path, name: store.fileName).settlePending(current: try FileSystem.identity(of: path))
            }
        }
    }

    /// A number that changes whenever the items this session returns change:
    /// a file re-read after a change on disk, or a save. Equal numbers mean
    /// `contents()` returned the same items (for caches built on them).
    public var revision: Int { mutex.withLock { itemsRevision } }

    init(directory: VaultDirectory, local: FileState, shared: FileState, warnings: [VaultWarning] = []) {
        self.directory = directory
        self.state = State(local: local, shared: shared)
        unreported = warnings
    }

    /// Receives what a write that succeeded could not do, or noticed
    /// (`VaultWarning`: a directory sync or a backup rotation that failed after
    /// the commit, foreign items moved out of `shared.vault`), after the
    /// write, outside the session's lock. Setting it delivers the warnings
    /// queued before (those of the open). Nil: the latest 16 are queued.
    public var warningHandler: ((VaultWarning) -> Void)? {
        get { mutex.withLock { handler } }
        set {
            mutex.withLock { handler = newValue }
            reportWarnings()
        }
    }
    private var handler: ((VaultWarning) -> Void)?
    var unreported: [VaultWarning] = []

    private func reportWarnings() {
        mutex.lock()
        let handler = self.handler
        var warnings: [VaultWarning] = []
        if handler != nil {
            swap(&warnings, &unreported)
        } else if unreported.count > 16 {
            // Nobody listening (the agent): keep the latest, not one per save forever.
            unreported.removeFirst(unreported.count - 16)
        }
        mutex.unlock()
        for warning in warnings { handler?(warning) }
    }

    /// The Argon2id limits of the master password (from `local.vault`'s header;
    /// the last known ones after `lock()`).
    public var limits: PasswordHashLimits {
        mutex.withLock { state?.local.header.limits ?? lastLimits }
    }
    private var lastLimits = PasswordHashLimits.minimum

    /// Whether `shared.vault` was absent when this session last read or wrote
    /// it, while `local.vault` exists. `init` creates both files, so this
    /// usually means the file was lost (a sync deleted it, a stray `mv`): the
    /// shared credentials read as empty, and the next save that changes them
    /// recreates the file (docs/vault-format.md). Not an error: a fresh
    /// machine may hold only `local.vault`. False after `lock()`.
    public var isSharedFileMissing: Bool {
        mutex.withLock { state.map { $0.shared.identity == nil } ?? false }
    }

    /// The items of both files. A file is re-read (and re-authenticated) only
    /// when it changed on disk since this session last read or wrote it.
    /// - Throws: `VaultError` `.locked`, `.changedOnDisk` (re-sealed under
    ///   another password), the open errors of `VaultDirectory.unlock`.
    public func contents() throws -> VaultContents {
        try mutex.withLock {
            guard var state else { throw lockedError }
            defer { self.state = state }
            try refresh(.local, &state)
            try refresh(.shared, &state)
            return VaultContents(local: state.local.items, shared: state.shared.items)
        }
    }

    /// Runs `write` on the current state under the directory's exclusive
    /// `flock`, after finishing or undoing a `passwd` another process left
    /// half done (`JointReplace.recover`) and re-reading the files that
    /// changed on disk. Every write goes through here. The session
    /// holds no reference to the item arrays meanwhile, so `write` edits them
    /// in place (no copy-on-write).
    func lockedWrite<T>(_ write: (inout State) throws -> T) throws -> T {
        defer { reportWarnings() }
        return try mutex.withLock {
            guard var state else { throw lockedError }
            self.state = nil
            defer { self.state = state }
            return try LockFile.withExclusiveLock(directory: directory.path, timeout: directory.lockTimeout) {
                unreported += try JointReplace.recover(directory: directory.path)
                try refresh(.local, &state)
                try refresh(.shared, &state)
                return try write(&state)
            }
        }
    }

    /// Changes the master password and rotates the keys: one new salt, one
    /// Argon2id run, a new random vault key for each file, and both payloads
    /// re-sealed under them (appendices folded in), so that the old password
    /// opens no file written from now on, not even under an old header.
    /// Both files are replaced all or nothing (`JointReplace`;
    /// docs/vault-format.md, "Changing the master password").
    /// - Parameter limits: new Argon2id limits, or nil to keep the current ones.
    /// - Throws: `VaultError` `.kdfLimitsTooHigh`, `.changedOnDisk`, `.locked`,
    ///   `.io` (also when another process holds the lock longer than
    ///   `VaultDirectory.lockTimeout`); both files then open with the old password.
    public func changePassword(to newPassword: Secret, limits: PasswordHashLimits?) throws {
        try lockedWrite { state in
            let newLimits = limits ?? state.local.header.limits
            try VaultHeader.checkCeilings(newLimits, path: directory.path)
            try resealBoth(&state) { try PasswordChange.reseal(&$0, &$1, to: newPassword, limits: newLimits, directory: directory.path) }
        }
    }

    /// Runs one of `PasswordChange`'s re-seals of both files, inside
    /// `lockedWrite`. When it fails, both files are re-read before their next
    /// use: the failure may come after the files on disk were replaced.
    func resealBoth(_ state: inout State, _ reseal: (inout FileState, inout FileState) throws -> [VaultWarning]) throws {
        do {
            unreported += try reseal(&state.local, &state.shared)
        } catch {
            state.local.needsReload = true
            state.shared.needsReload = true
            throw error
        }
    }

    /// Whether `password` is the master password, for re-asking it before
    /// releasing a `userPresence` item (DESIGN §7). Runs Argon2id once and
    /// compares the derived key in constant time. False when locked.
    public func verifyPassword(_ password: Secret) -> Bool {
        mutex.withLock {
            guard let state else { return false }
            let header = state.local.header
            guard let key = try? VaultFile.deriveKey(password: password, salt: header.salt, limits: header.limits, path: directory.path) else {
                return false
            }
            return key == state.local.passwordKey
        }
    }

    /// Copies of the Argon2id outputs this session holds (one per distinct
    /// salt and limits; two when `shared.vault` came from another machine),
    /// for the agent to keep (`VaultDirectory.unlock(passwordKeys:)`).
    /// The copies are not wiped by `lock()`; their owner wipes them.
    /// - Throws: `VaultError.locked`.
    public func passwordKeys() throws -> [VaultPasswordKey] {
        try mutex.withLock {
            guard let state else { throw lockedError }
            var keys: [VaultPasswordKey] = []
            for file in [state.local, state.shared] where !keys.contains(where: { $0.fits(file.header) }) {
                let copy = file.passwordKey.copy(range: 0..<file.passwordKey.byteCount)
                keys.append(VaultPasswordKey(salt: file.header.salt, limits: file.header.limits, key: copy))
            }
            return keys
        }
    }

    /// Wipes the keys and forgets the items; later calls throw `VaultError.locked`.
    public func lock() {
        mutex.withLock {
            guard let state else { return }
            lastLimits = state.local.header.limits
            for file in [state.local, state.shared] {
                file.passwordKey.wipe()
                file.vaultKey.wipe()
            }
            self.state = nil
        }
    }

    private var lockedError: VaultError {
        VaultError(.locked, file: directory.path, reason: "the vault is locked; unlock it again")
    }

    // MARK: Reading and writing files

    /// Re-reads `store`'s file when its identity on disk differs from the one last seen.
    private func refresh(_ store: Store, _ state: inout State) throws {
        let path = directory.path(of: store)
        let identity = try FileSystem.identity(of: path)
        guard state[store].needsReload || state[store].hasUnfinishedAppend || identity != state[store].identity else { return }
        if !state[store].needsReload, let identity, identity == state[store].identity,
           FileSystem.header(path, expected: identity) == state[store].header.serialized() {
            // Bytes after the payload, and the header that would announce them still the one read: nothing was committed since.
            return
        }
        itemsRevision += 1
        guard let file = try FileSystem.read(path) else {
            guard store == .shared else {
                throw VaultError(.noVault, file: path, reason: "was removed while the vault was open")
            }
            state.shared = FileState(header: state.shared.header, passwordKey: state.shared.passwordKey, vaultKey: state.shared.vaultKey)
            return
        }
        state[store] = try Self.openFile(file, store: store, password: nil, reusing: state[store], path: path)
    }
}
