/// Which backup to restore when a vault file does not open with the
/// password that opens the other file (issue 11: the message must name the
/// one right copy, which may be `NAME.pending.bak` rather than `NAME.1.bak`).
enum RecoveryFile {
    /// The newest of `backups/NAME.pending.bak`, `NAME.1.bak` … `NAME.3.bak`
    /// of `store` whose vault key the password key of `known` unwraps (no
    /// Argon2id runs: only backups with `known`'s salt and limits are tried);
    /// nil when none does.
    static func find(_ store: Store, in directory: String, opening known: VaultSession.FileState) -> String? {
        let backups = Backups(directory: directory, name: store.fileName)
        let candidates = [backups.pending] + (1...AtomicFile.backupCount).map(backups.numbered)
        return candidates.first { path in
            guard let file = try? FileSystem.read(path),
                  let header = try? VaultHeader.parse(file, expected: store, path: path),
                  known.header.sharesKeyDerivation(with: header) else { return false }
            return (try? VaultFile.unwrapKey(header: header, passwordKey: known.passwordKey, path: path)) != nil
        }
    }
}
