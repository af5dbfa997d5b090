import Foundation
import KeyshelfCrypto

/// The directory holding `local.vault`, `shared.vault`, the lock file
/// `keyshelf.lock` and `backups/` (DESIGN §6, docs/vault-format.md).
public struct VaultDirectory: Sendable {
    /// The directory's location.
    public let url: URL

    /// How long a writer waits for another keyshelf process to release the
    /// vault's lock (`keyshelf.lock`) before giving up, in seconds.
    public var lockTimeout: TimeInterval = 30

    /// The highest Argon2id limits a vault may ask for: 16 passes, 2 GiB.
    /// Headers above are refused before any key derivation runs; `create`
    /// and `changePassword` refuse them too.
    public static let maximumLimits = PasswordHashLimits(opslimit: 16, memlimitBytes: 2 << 30)

    public init(url: URL) {
        self.url = url
    }

    /// The vault directory to use (DESIGN §8): `--vault DIR`, else
    /// `$KEYSHELF_VAULT`, else `$XDG_DATA_HOME/keyshelf`, else
    /// `~/.local/share/keyshelf`. Empty values count as unset.
    public static func resolve(option: String?, environment: [String: String]) -> VaultDirectory {
        func nonEmpty(_ s: String?) -> String? { s.flatMap { $0.isEmpty ? nil : $0 } }
        if let dir = nonEmpty(option) ?? nonEmpty(environment["KEYSHELF_VAULT"]) {
            return VaultDirectory(url: URL(fileURLWithPath: dir, isDirectory: true))
        }
        if let data = nonEmpty(environment["XDG_DATA_HOME"]) {
            return VaultDirectory(url: URL(fileURLWithPath: data, isDirectory: true).appendingPathComponent("keyshelf", isDirectory: true))
        }
        let home = nonEmpty(environment["HOME"]).map { URL(fileURLWithPath: $0, isDirectory: true) }
            ?? FileManager.default.homeDirectoryForCurrentUser
        return VaultDirectory(url: home.appendingPathComponent(".local/share/keyshelf", isDirectory: true))
    }

    /// Whether `local.vault` is present: false only when it does not exist
    /// (ENOENT, the directory included).
    /// - Throws: `VaultError.io` naming the path and the system's reason when
    ///   it cannot be examined (permission denied, a file where the directory
    ///   should be), or when it is a symbolic link (refused: docs/vault-format.md).
    public func vaultExists() throws -> Bool {
        let file = path(of: .local)
        try FileSystem.refuseSymbolicLink(file)
        return try FileSystem.identity(of: file) != nil
    }

    /// `vaultExists()` for code that cannot handle its error: false only when
    /// `local.vault` is surely absent, true otherwise, so that `unlock`
    /// reports the actual error (it never says "no vault" for an unreadable one).
    public var exists: Bool {
        (try? vaultExists()) ?? true
    }

    var path: String { url.path }

    /// The path of `store`'s vault file (`local.vault`, `shared.vault`).
    public func path(of store: Store) -> String { path + "/" + store.fileName }

    /// Creates the vault: the directory (mode 0700; an existing one this user
    /// owns is set to 0700, another user's is refused) and both files (mode 0600),
    /// empty, sealed under `password` with one salt and `limits` (one Argon2id
    /// run unlocks both). When only `shared.vault` is present (a synced copy
    /// on a new machine), it is adopted: `password` must open it, its salt and
    /// limits are kept (`limits` is ignored) and only `local.vault` is written.
    /// An adopted file's limits above `limits` are paid only when
    /// `keyDerivationConsent` approves (asked before the lock is taken).
    /// - Throws: `VaultError` `.alreadyExists` when `local.vault` is present,
    ///   `.kdfLimitsTooHigh` for limits above `maximumLimits`, the open errors
    ///   of `unlock` for an adopted `shared.vault`, `.io`.
    public func create(password: Secret, limits: PasswordHashLimits,
                       keyDerivationConsent: any KeyDerivationConsent = RefuseHigherLimits()) throws -> VaultSession {
        try VaultHeader.checkCeilings(limits, path: path)
        try FileSystem.makeDirectory(path)
        let gate = KeyDerivationGate(keyDerivationConsent, usual: limits)
        if !keyDerivationConsent.answersWithoutWaiting, try !vaultExists(), let file = try FileSystem.read(path(of: .shared)) {
            try gate.check(try VaultHeader.parse(file, expected: .shared, path: path(of: .shared)), path: path(of: .shared))
        }
        return try LockFile.withExclusiveLock(directory: path, timeout: lockTimeout) {
            guard try !vaultExists() else {
                throw VaultError(.alreadyExists, file: path(of: .local), reason: "a vault already exists here; use it, or choose another directory with --vault")
            }
            var shared: VaultSession.FileState
            var warnings: [VaultWarning] = []
            let localKey = Random.secureBytes(VaultHeader.vaultKeyByteCount)
            if let file = try FileSystem.read(path(of: .shared)) {
                try gate.check(try VaultHeader.parse(file, expected: .shared, path: path(of: .shared)), path: path(of: .shared))
                shared = try VaultSession.openFile(file, store: .shared, password: password, reusing: nil, path: path(of: .shared))
            } else {
                let salt = Random.bytes(PasswordHash.saltByteCount)
                let passwordKey = try VaultFile.deriveKey(password: password, salt: salt, limits: limits, path: path)
                let sharedKey = Random.secureBytes(VaultHeader.vaultKeyByteCount)
                let header = try VaultFile.makeHeader(store: .shared, limits: limits, salt: salt, vaultKey: sharedKey, passwordKey: passwordKey)
                shared = VaultSession.FileState(header: header, passwordKey: passwordKey, vaultKey: sharedKey)
                warnings += try VaultSession.save([], plaintext: shared.wholePlaintext(), generation: shared.generation, store: .shared, file: &shared, directory: path)
            }
            let localHeader = try VaultFile.makeHeader(
                store: .local, limits: shared.header.limits, salt: shared.header.salt, vaultKey: localKey, passwordKey: shared.passwordKey)
            var local = VaultSession.FileState(header: localHeader, passwordKey: shared.passwordKey, vaultKey: localKey)
            warnings += try VaultSession.save([], plaintext: local.wholePlaintext(), generation: local.generation, store: .local, file: &local, directory: path)
            return VaultSession(directory: self, local: local, shared: shared, warnings: warnings)
        }
    }

    /// Opens the vault with `password`: checks both headers (ceilings
    /// included) before running Argon2id once, unwraps both vault keys, and
    /// authenticates each whole payload before decoding it. Writes only to
    /// finish or undo a `passwd` a crash interrupted (`recoverInterruptedPasswd`).
    /// A `shared.vault` sealed with another salt (a copy from another machine)
    /// costs a second Argon2id run; a missing one opens empty. That run's
    /// limits, when above `local.vault`'s, are paid only when
    /// `keyDerivationConsent` approves, asked before any Argon2id run.
    /// - Throws: `VaultError` `.noVault`, `.wrongPassword`, `.notAVault`,
    ///   `.unsupportedVersion`, `.damaged`, `.truncated`, `.kdfLimitsTooHigh`,
    ///   `.kdfLimitsNotApproved`, `.io`; `file` names the vault file concerned.
    public func unlock(password: Secret, keyDerivationConsent: any KeyDerivationConsent = RefuseHigherLimits()) throws -> VaultSession {
        let (recovered, localFile, sharedFile) = try readFilesToUnlock()
        // Every header is checked, and any question asked, before any Argon2id run.
        let localHeader = try VaultHeader.parse(localFile, expected: .local, path: path(of: .local))
        if let sharedFile {
            let sharedHeader = try VaultHeader.parse(sharedFile, expected: .shared, path: path(of: .shared))
            if !sharedHeader.sharesKeyDerivation(with: localHeader) {
                try KeyDerivationGate(keyDerivationConsent, usual: localHeader.limits).check(sharedHeader, path: path(of: .shared))
            }
        }
        let local = try VaultSession.openFile(localFile, store: .local, password: password, reusing: nil, path: path(of: .local))
        var shared: VaultSession.FileState?
        if let sharedFile {
            do {
                shared = try VaultSession.openFile(sharedFile, store: .shared, password: password, reusing: local, path: path(of: .shared))
            } catch var error as VaultError where error.code == .wrongPassword {
                error.reason = "is sealed with another master password than local.vault (a copy from a machine with another password, or an old `keyshelf passwd`); "
                    + (RecoveryFile.find(.shared, in: path, opening: local).map { "restore \($0) as shared.vault (it opens with this password), or move shared.vault aside" }
                        ?? "no backup opens with this password: move shared.vault aside, or open it with the other machine's password")
                throw error
            }
        }
        return try session(local: local, shared: shared, warnings: recovered)
    }

    /// What both unlock paths read first, after finishing or undoing an
    /// interrupted `passwd`: `local.vault` and, when there is one, `shared.vault`.
    /// - Throws: `VaultError.noVault` when `local.vault` is missing; `.io`.
    func readFilesToUnlock() throws -> (recovered: [VaultWarning], local: (bytes: [UInt8], identity: FileIdentity), shared: (bytes: [UInt8], identity: FileIdentity)?) {
        let recovered = try recoverInterruptedPasswd()
        guard let localFile = try FileSystem.read(path(of: .local)) else {
            throw VaultError(.noVault, file: path(of: .local), reason: "no vault here; create one with `keyshelf init`")
        }
        return (recovered, localFile, try FileSystem.read(path(of: .shared)))
    }

    /// The session over the opened files. A missing `shared.vault` (nil)
    /// opens empty: a new random vault key wrapped under `local`'s password
    /// key, written at the first save into it.
    func session(local: VaultSession.FileState, shared: VaultSession.FileState?, warnings: [VaultWarning]) throws -> VaultSession {
        let shared = try shared ?? {
            let key = Random.secureBytes(VaultHeader.vaultKeyByteCount)
            let header = try VaultFile.makeHeader(store: .shared, limits: local.header.limits, salt: local.header.salt, vaultKey: key, passwordKey: local.passwordKey)
            return VaultSession.FileState(header: header, passwordKey: local.passwordKey, vaultKey: key)
        }()
        return VaultSession(directory: self, local: local, shared: shared, warnings: warnings)
    }

    /// Finishes or undoes a `keyshelf passwd` that a crash interrupted (its
    /// journal `passwd.journal` is there), under the directory's lock, so that
    /// both files open with one password (docs/vault-format.md).
    /// - Returns: what could not be done after that (backup rotation).
    /// - Throws: `.io` naming the backup to restore by hand when undoing failed; the lock errors.
    func recoverInterruptedPasswd() throws -> [VaultWarning] {
        guard try FileSystem.identity(of: path + "/" + JointReplace.journalName) != nil else { return [] }
        return try LockFile.withExclusiveLock(directory: path, timeout: lockTimeout) { try JointReplace.recover(directory: path) }
    }
}
