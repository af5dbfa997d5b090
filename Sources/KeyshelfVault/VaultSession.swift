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
    private var clockSource: @Sendable () -> Date = { Date() }

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

    /// A locked read-modify-write: takes the exclusive `flock`, re-reads what
    /// changed on disk, runs `body` on the current contents, then saves
    /// atomically only the files whose encoded items changed. When `body`
    /// throws, nothing is written. `body` must not call back into this session.
    /// - Throws: whatever `body` throws; `VaultError.io` when `body` put a
    ///   `…ThisDeviceOnly` item into `shared` (DESIGN §2: it never leaves this
    ///   device); `.changedOnDisk` when a file was replaced outside the lock
    ///   meanwhile; `.locked`; `.io`, also when another process holds the
    ///   lock longer than `VaultDirectory.lockTimeout`.
    @discardableResult
    public func modify<T>(_ body: (inout VaultContents) throws -> T) throws -> T {
        try lockedWrite { state in
            var contents = VaultContents(local: state.local.items, shared: state.shared.items)
            // A file saved by this session holds no device-only item: only one read from disk is looked through.
            let quarantine = state.shared.mayHoldForeignItems ? ForeignItems.quarantine(&contents, file: directory.path(of: .shared)) : nil
            // Hand the arrays over, so that the body edits a large vault in
            // place instead of copying it; the record lists still hold the old state.
            for store in Store.allCases { state[store].items = [] }
            let result: T
            var changed: [Store: [Int]?] = [:]
            var bounds: [Store: ChangeStamp?] = [:]
            do {
                result = try body(&contents)
                let now = clockSource()
                for store in Store.allCases {
                    // Only the records whose origin is gone can have changed, so only they are checked and stamped.
                    let positions = state[store].changedPositions(in: contents[store])
                    if store == .shared, let index = positions.map({ $0.first { contents.shared[$0].accessible.isThisDeviceOnly } })
                        ?? contents.shared.firstIndex(inPlace: { $0.pointee.accessible.isThisDeviceOnly }) {
                        throw thisDeviceOnlyError(contents.shared[index])
                    }
                    if let positions, case let .some(bound) = state[store].stampBound {
                        bounds[store] = ChangeStamper.stamp(&contents[store], at: positions, after: bound, now: now)
                    } else {
                        bounds[store] = ChangeStamper.stamp(&contents[store], now: now)
                    }
                    changed[store] = positions
                }
            } catch {
                for store in Store.allCases { Self.restoreItems(&state[store]) }
                throw error
            }
            // Shared first, then local; each file is atomic on its own, the pair is not. Items moved
            // out of shared.vault are saved in local.vault first, so that no failure loses them.
            let order: [Store] = quarantine == nil ? [.shared, .local] : [.local, .shared]
            for (index, store) in order.enumerated() {
                var items = contents[store]
                contents[store] = []
                let edit = state.withFile(store) { $0.edit(of: &items, at: changed[store] ?? nil) }
                do {
                    switch edit {
                    case .none:
                        state.withFile(store) { $0.items = items }
                    case let .records(list, positions, replaces):
                        // Only the records the body changed or added were encoded: an appendix when the file takes one.
                        if try state.withFile(store, { try Self.append(list, replacing: replaces, store: store, file: &$0, directory: directory.path) }) {
                            state.withFile(store) { $0.adopt(&items, patch: list, at: positions) }
                        } else {
                            let generation = RecordOrigin.nextGeneration()
                            unreported += try Self.save(items, plaintext: RecordCodec.encode(&items, generation: generation), generation: generation,
                                                        store: store, file: &state[store], directory: directory.path, rotateBackups: !deferRotation)
                        }
                        itemsRevision += 1
                    case .whole:
                        if try saveWhole(&items, store: store, state: &state) { itemsRevision += 1 }
                    }
                    state[store].stampBound = bounds[store]
                } catch {
                    state[store].needsReload = true
                    if index == 0 { Self.restoreItems(&state[order[1]]) }
                    throw error
                }
            }
            state.shared.mayHoldForeignItems = false
            unreported += quarantine.map { [$0] } ?? []
            return result
        }
    }

    /// Saves `items`, `store`'s items after a change that `FileState.edit`
    /// could not narrow to a few records: encodes them whole and writes the
    /// records that differ as an appendix when the file takes one, else the
    /// whole file.
    /// - Returns: false when the encoding is the file's own (nothing written).
    private func saveWhole(_ items: inout [Item], store: Store, state: inout State) throws -> Bool {
        let generation = RecordOrigin.nextGeneration()
        let plaintext = RecordCodec.encode(&items, generation: generation)
        let old = state.withFile(store) { $0.wholePlaintext() }
        if plaintext.hasSameBytes(as: old) {
            state.withFile(store) { $0.adopt(items, plaintext: plaintext, generation: generation) }
            return false
        }
        if let change = RecordCodec.changedRecords(from: old, to: plaintext),
           try state.withFile(store, { try Self.append(change.records, replacing: change.replaces, store: store,
                                                        file: &$0, directory: directory.path) }) {
            state.withFile(store) { $0.adopt(items, plaintext: plaintext, generation: generation) }
        } else {
            unreported += try Self.save(items, plaintext: plaintext, generation: generation, store: store, file: &state[store],
                                        directory: directory.path, rotateBackups: !deferRotation)
        }
        return true
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

    /// A locked addition at the end of one store: takes the exclusive
    /// `flock`, re-reads what changed on disk, lets `body` read the current
    /// contents and return the item to add after `store`'s last one (nil: no
    /// plain addition; nothing is written), and saves it. Unlike `modify`,
    /// only that item is encoded: it goes into an appendix when the file can
    /// take one and no item of the store has its id, else the whole file is
    /// replaced as `modify` does. `body`
    /// must not call back into this session.
    /// - Returns: whether the item was added.
    /// - Throws: whatever `body` throws; the errors of `modify` (a
    ///   `…ThisDeviceOnly` item for `shared` included).
    public func add(to store: Store, _ body: (VaultContents) throws -> Item?) throws -> Bool {
        try lockedWrite { state in
            guard var item = try body(VaultContents(local: state.local.items, shared: state.shared.items)) else { return false }
            if store == .shared, item.accessible.isThisDeviceOnly { throw thisDeviceOnlyError(item) }
            ChangeStamper.stamp(&item, addedTo: state[store].items, now: clockSource())
            var added = [item]
            let records = RecordCodec.encode(&added)
            do {
                try state.withFile(store) { file in
                    // An appendix's record with an earlier record's id would be folded onto it by every reader.
                    let id = item.id
                    let isNew = file.items.withUnsafeBufferPointer { items in !items.indices.contains { items[$0].id == id } }
                    let appended = isNew ? try Self.append(records, replacing: false, store: store, file: &file, directory: directory.path) : false
                    var items = file.items
                    file.items = []
                    items.append(contentsOf: added)
                    if appended {
                        file.adopt(&items, patch: records, at: [items.count - 1])
                    } else {
                        let generation = RecordOrigin.nextGeneration()
                        unreported += try Self.save(items, plaintext: RecordCodec.encode(&items, generation: generation), generation: generation,
                                                    store: store, file: &file, directory: directory.path, rotateBackups: !deferRotation)
                    }
                    // The bound stays at least every stamp of the store: the next edit is stamped after this item.
                    if case let .some(bound) = file.stampBound, let stamp = added[added.count - 1].changeStamp,
                       bound.map({ $0.precedes(stamp) }) ?? true {
                        file.stampBound = .some(stamp)
                    }
                }
            } catch {
                state.withFile(store) { $0.needsReload = true }
                throw error
            }
            itemsRevision += 1
            return true
        }
    }

    private func thisDeviceOnlyError(_ item: Item) -> VaultError {
        VaultError(.io, file: directory.path(of: .shared), reason: "refused to save: the item for \(item.server.isEmpty ? item.service : item.server) (account \(item.account)) is \(item.accessible) and must stay in the local store; nothing was written")
    }

    /// Rebuilds `file.items` from its plaintext after they were handed to a body that failed.
    private static func restoreItems(_ file: inout FileState) {
        let plaintext = file.wholePlaintext()
        if let items = try? RecordCodec.decode(plaintext, generation: file.generation) {
            file.adopt(items, plaintext: plaintext, generation: file.generation)
        } else {
            file.needsReload = true
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
