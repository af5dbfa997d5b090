import Foundation
import KeyshelfCrypto

/// Copies of `shared.vault` that are not this directory's file: the versions
/// git holds (a fetched commit, a merge base) and the files git hands its
/// merge driver (docs/sync.md).
extension VaultSession {
    /// Opens `bytes`, a copy of a `shared.vault`, with this session's keys and
    /// checks it as any vault: header checks (KDF ceilings included), then the
    /// whole payload authenticated before decoding. No Argon2id runs: a copy
    /// whose salt or limits differ from this vault's (sealed under another
    /// master password, or its limits changed) is refused, since a change not
    /// made by this vault's `passwd` must not be paid for or trusted.
    /// - Parameter name: how messages name the copy (e.g. "origin/main:shared.vault").
    /// - Returns: its items, tombstones included.
    /// - Throws: `VaultError` `.notAVault`, `.unsupportedVersion`, `.damaged`,
    ///   `.truncated`, `.kdfLimitsTooHigh`, `.wrongPassword` (another vault key),
    ///   `.changedOnDisk` (other salt or limits), `.locked`.
    public func openSharedCopy(_ bytes: [UInt8], name: String) throws -> [Item] {
        let keys = try mutex.withLock { () throws -> (VaultHeader, SecureBytes, SecureBytes, SecureBytes) in
            guard let state else { throw lockedCopyError(name) }
            return (state.shared.header, state.shared.passwordKey, state.shared.vaultKey, state.local.vaultKey)
        }
        let header = try bytes.withUnsafeBytes { try VaultHeader.parse($0, fileByteCount: bytes.count, expected: .shared, path: name) }
        if !header.sharesKeyDerivation(with: keys.0) {
            // A copy committed before this vault's latest key rotation opens with the password key it retired.
            guard let retired = RetiredKeys.read(directory: directory.path, localKey: keys.3).key(for: header) else {
                throw VaultError(.changedOnDisk, file: name, reason: "is sealed with other key parameters than this vault's shared.vault (Argon2id \(header.limits), another salt): another master password, or a header changed by someone else; nothing was merged. If another machine ran `keyshelf passwd`, `keyshelf sync` asks for the new password")
            }
            return try VaultFile.open(bytes, header: header, vaultKey: VaultFile.unwrapKey(header: header, passwordKey: retired, path: name), path: name).items
        }
        let vaultKey = header.nonce == keys.0.nonce && header.wrappedKey == keys.0.wrappedKey
            ? keys.2 : try VaultFile.unwrapKey(header: header, passwordKey: keys.1, path: name)
        return try VaultFile.open(bytes, header: header, vaultKey: vaultKey, path: name).items
    }

    /// `items` sealed as a `shared.vault` file under this session's shared
    /// header and key, for the merge driver, which writes the file git gives
    /// it. When `ours` (the copy the result replaces) is under this key and
    /// `items` only change some of its records in place or add some, the
    /// result is `ours` with an appendix (docs/vault-format.md,
    /// "Appendices"), so git stores a small delta; when `items` are its
    /// records as they are, `ours` itself (less any unannounced bytes after
    /// its payload); else a whole file (a fresh secretstream header).
    /// - Throws: `VaultError.io` for a `…ThisDeviceOnly` item; `.locked`; the
    ///   open errors of `openSharedCopy` for `ours`.
    public func sealSharedCopy(_ items: [Item], over ours: [UInt8]? = nil) throws -> [UInt8] {
        if let item = items.first(where: { $0.accessible.isThisDeviceOnly }) {
            throw VaultError(.io, file: directory.path(of: .shared), reason: "refused to seal: the item for \(item.server.isEmpty ? item.service : item.server) is \(item.accessible) and must stay in the local store")
        }
        let (template, passwordKey, vaultKey) = try mutex.withLock { () throws -> (VaultHeader, SecureBytes, SecureBytes) in
            guard let state else { throw lockedCopyError("shared.vault") }
            return (state.shared.header, state.shared.passwordKey, state.shared.vaultKey)
        }
        var encoded = items
        let plaintext = RecordCodec.encode(&encoded)
        if let ours, let appended = try appendedCopy(plaintext, over: ours, template: template, vaultKey: vaultKey) {
            return appended
        }
        // The segments of OURS that the merge left unchanged are kept, as a save keeps them.
        let kept = try ours.flatMap { ours -> (segments: [SegmentLayout.OldSegment], bytes: [UInt8])? in
            let header = try ours.withUnsafeBytes { try VaultHeader.parse($0, fileByteCount: ours.count, expected: .shared, path: "this branch's shared.vault") }
            guard header.nonce == template.nonce, header.wrappedKey == template.wrappedKey else { return nil }
            return (try VaultFile.baseSegments(ours, header: header, vaultKey: vaultKey, path: "this branch's shared.vault"), ours)
        }
        let layout = SegmentLayout(plaintext, chunkByteCount: Int(template.chunkByteCount), reusing: kept?.segments ?? [], from: kept?.bytes ?? [])
        let header = try VaultFile.sealedHeader(for: layout, header: template, vaultKey: vaultKey, passwordKey: passwordKey)
        var out = header.serialized()
        out.reserveCapacity(VaultHeader.byteCount + Int(header.payloadByteCount))
        _ = try layout.seal(plaintext, header: header, vaultKey: vaultKey) { out.append(contentsOf: $0) }
        return out
    }

    /// `ours` with an appendix that turns its records into `plaintext`'s, as
    /// a save of the vault file would append one, or `ours` alone when its
    /// records are `plaintext`'s; nil when it cannot take an appendix.
    private func appendedCopy(_ plaintext: SecureBytes, over ours: [UInt8], template: VaultHeader, vaultKey: SecureBytes) throws -> [UInt8]? {
        let name = "this branch's shared.vault"
        var header = try ours.withUnsafeBytes { try VaultHeader.parse($0, fileByteCount: ours.count, expected: .shared, path: name) }
        guard header.nonce == template.nonce, header.wrappedKey == template.wrappedKey else { return nil }
        let opened = try VaultFile.open(ours, header: header, vaultKey: vaultKey, path: name)
        let end = VaultHeader.byteCount + Int(header.payloadByteCount)
        // Nothing to merge in: re-sealed, the same records would make git store the whole file again.
        if plaintext.hasSameBytes(as: opened.plaintext) { return Array(ours[..<end]) }
        guard let change = RecordCodec.changedRecords(from: opened.plaintext, to: plaintext),
              Self.takesAppendix(recordsByteCount: change.records.byteCount, replacing: change.replaces, header: header,
                                 appendixCount: opened.appendixCount, appendixByteCount: opened.appendixByteCount) else { return nil }
        let appendix = try VaultFile.sealAppendix(change.records, header: header, vaultKey: vaultKey, payloadTag: opened.payloadTag,
                                                  index: opened.appendixCount)
        header.payloadByteCount += UInt64(appendix.count)
        return header.serialized() + ours[VaultHeader.byteCount..<end] + appendix
    }

    /// Replaces `shared.vault` with `bytes`, a copy of it (the remote's, when
    /// it already holds everything this machine has), so that both machines
    /// track one blob instead of re-sealing equal contents. Under the lock,
    /// after re-reading the files: `accept` sees the current shared items and
    /// says whether the copy may replace them; the copy is checked as
    /// `openSharedCopy` does; the save is atomic with backups as any save.
    /// - Returns: whether the copy was written.
    /// - Throws: the errors of `openSharedCopy`; `.changedOnDisk`, `.io`, `.locked`.
    public func adoptSharedCopy(_ bytes: [UInt8], name: String, if accept: ([Item]) -> Bool) throws -> Bool {
        _ = try openSharedCopy(bytes, name: name)
        let header = try bytes.withUnsafeBytes { try VaultHeader.parse($0, fileByteCount: bytes.count, expected: .shared, path: name) }
        return try lockedWrite { state in
            // A copy under a retired password key would bring the old password back.
            guard header.sharesKeyDerivation(with: state.shared.header), accept(state.shared.items) else { return false }
            do {
                let saved = try AtomicFile.replace(
                    directory: directory.path, name: Store.shared.fileName, header: Array(bytes[..<VaultHeader.byteCount]),
                    payloadByteCount: bytes.count - VaultHeader.byteCount,
                    writePayload: { write in try bytes[VaultHeader.byteCount...].withUnsafeBytes { try write($0) } },
                    expected: state.shared.identity, rotateBackups: !deferRotation)
                unreported += saved.warnings
            } catch {
                state.shared.needsReload = true
                throw error
            }
            // Read back by the next access, with the keys this session holds.
            state.shared.needsReload = true
            itemsRevision += 1
            return true
        }
    }

    /// Adopts the master password another machine's `passwd` set (issue 14
    /// item 5): `password` must open `bytes`, a fetched copy of
    /// `shared.vault` under another salt. Then, under the lock, both files
    /// are re-sealed as `changePassword` does, with the copy's salt, limits
    /// and shared vault key (so that this vault's `shared.vault` and the
    /// remote's open with one key) and a new random key for `local.vault`;
    /// the replaced password key is retired (`RetiredKeys`) so that copies
    /// committed before the change still open.
    /// - Throws: `VaultError` `.wrongPassword` (the password does not open
    ///   the copy), the open errors of `openSharedCopy` (`.damaged`,
    ///   `.kdfLimitsTooHigh`, …), and those of `changePassword`.
    public func adoptPassword(_ password: Secret, fromSharedCopy bytes: [UInt8], name: String) throws {
        let header = try bytes.withUnsafeBytes { try VaultHeader.parse($0, fileByteCount: bytes.count, expected: .shared, path: name) }
        let passwordKey = try VaultFile.deriveKey(password: password, salt: header.salt, limits: header.limits, path: name)
        let sharedKey: SecureBytes
        do {
            sharedKey = try VaultFile.unwrapKey(header: header, passwordKey: passwordKey, path: name)
        } catch var error as VaultError {
            error.reason = "does not open with this password: it is not the master password set on the other machine"
            throw error
        }
        _ = try VaultFile.open(bytes, header: header, vaultKey: sharedKey, path: name)
        let newKey = VaultPasswordKey(salt: header.salt, limits: header.limits, key: passwordKey)
        try lockedWrite { state in
            try resealBoth(&state) { try PasswordChange.reseal(&$0, &$1, under: newKey, sharedKey: sharedKey, directory: directory.path) }
        }
    }

    private func lockedCopyError(_ name: String) -> VaultError {
        VaultError(.locked, file: name, reason: "the vault is locked; unlock it again")
    }
}
